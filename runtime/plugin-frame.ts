import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The plugin file each start-up failure came from; set where the runtime knows it (setup, start, import). */
const sources = new WeakMap<object, string>();

/** Remember that `err` was raised while running the plugin loaded from `file`. */
export function notePluginSource(err: unknown, file: string): void {
  if (err !== null && typeof err === 'object' && !sources.has(err)) sources.set(err, file);
}

/**
 * Where in the plugin's own code a start-up failure happened, as `file:line:column`: the first stack
 * frame (of the error or any of its causes) inside the plugin's folder, outside its node_modules.
 * The runtime's frames say nothing to a plugin author; this one is the line to open.
 */
export function pluginFrameOf(err: unknown): string | undefined {
  const file = err !== null && typeof err === 'object' ? sources.get(err) : undefined;
  if (file === undefined) return undefined;
  const dir = path.dirname(path.resolve(file)) + path.sep;
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    for (const frame of framesOf(e.stack ?? '')) {
      if (frame.file.startsWith(dir) && !frame.file.slice(dir.length).split(path.sep).includes('node_modules')) {
        return `${frame.file}:${frame.line}:${frame.column}`;
      }
    }
  }
  return undefined;
}

interface Frame {
  file: string;
  line: number;
  column: number;
}

function framesOf(stack: string): Frame[] {
  const frames: Frame[] = [];
  // A syntax error on import names the file on the stack's first line, without a column.
  const head = /^(file:\/\/\S+|\/\S+):(\d+)$/m.exec(stack.split('\n')[0] ?? '');
  if (head) frames.push({ file: toPath(head[1]!), line: Number(head[2]), column: 1 });
  for (const match of stack.matchAll(/^\s*at (?:.*? \()?(.+?):(\d+):(\d+)\)?$/gm)) {
    frames.push({ file: toPath(match[1]!), line: Number(match[2]), column: Number(match[3]) });
  }
  return frames;
}

function toPath(location: string): string {
  return location.startsWith('file://') ? fileURLToPath(location) : location;
}
