/**
 * Prometheus text exposition (0.0.4) to OpenMetrics 1.0: a counter's family is named without
 * `_total` while its samples keep it, blank lines go, and the text ends with `# EOF`. Done on the
 * text because prom-client renames the shared metric objects when a registry renders OpenMetrics.
 */
export function toOpenMetrics(prometheus: string): string {
  const lines = prometheus.split('\n').filter((l) => l.trim() !== '');
  const counters = new Set<string>();
  for (const l of lines) {
    const m = /^# TYPE (\S+) counter$/.exec(l);
    if (m) counters.add(m[1]!);
  }
  const family = (name: string) => name.replace(/_total$/, '');
  const out: string[] = [];
  for (const l of lines) {
    const meta = /^# (HELP|TYPE) (\S+)(.*)$/.exec(l);
    if (meta) {
      out.push(counters.has(meta[2]!) ? `# ${meta[1]} ${family(meta[2]!)}${meta[3]}` : l);
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(.*)$/.exec(l);
    if (sample && counters.has(sample[1]!) && !sample[1]!.endsWith('_total')) {
      out.push(`${sample[1]}_total${sample[2]}`);
      continue;
    }
    out.push(l);
  }
  return `${out.join('\n')}\n# EOF\n`;
}
