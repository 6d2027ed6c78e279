const open = '<think>';
const close = '</think>';

/**
 * Removes `<think>...</think>` blocks from text that arrives in pieces: a tag split across two
 * chunks is still recognised, and text that might be the start of a tag is held back until the
 * next chunk (or `end()`) decides. What was removed is kept, so its tokens can still be counted.
 */
export class ThinkingFilter {
  private pending = '';
  private inside = false;
  removed = '';

  push(text: string): string {
    this.pending += text;
    let out = '';
    for (;;) {
      if (this.inside) {
        const at = this.pending.indexOf(close);
        if (at < 0) {
          const keep = partialSuffix(this.pending, close);
          this.removed += this.pending.slice(0, this.pending.length - keep);
          this.pending = this.pending.slice(this.pending.length - keep);
          return out;
        }
        this.removed += this.pending.slice(0, at);
        this.pending = this.pending.slice(at + close.length);
        this.inside = false;
        continue;
      }
      const at = this.pending.indexOf(open);
      if (at < 0) {
        const keep = partialSuffix(this.pending, open);
        out += this.pending.slice(0, this.pending.length - keep);
        this.pending = this.pending.slice(this.pending.length - keep);
        return out;
      }
      out += this.pending.slice(0, at);
      this.pending = this.pending.slice(at + open.length);
      this.inside = true;
    }
  }

  /** The text held back at the end: an unclosed block is dropped, a lone `<thi` is text. */
  end(): string {
    const rest = this.inside ? '' : this.pending;
    if (this.inside) this.removed += this.pending;
    this.pending = '';
    return rest;
  }
}

/** Length of the longest suffix of `text` that is a proper prefix of `tag`. */
function partialSuffix(text: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, text.length); n > 0; n--) if (text.endsWith(tag.slice(0, n))) return n;
  return 0;
}

/** The whole-text form: `<think>` blocks removed, and leading blank lines they leave trimmed. */
export function stripThinking(text: string): { text: string; removed: string } {
  const f = new ThinkingFilter();
  const kept = f.push(text) + f.end();
  return { text: f.removed ? kept.replace(/^\s+/, '') : kept, removed: f.removed };
}
