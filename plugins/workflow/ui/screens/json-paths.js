// Where each JSON path (`$.steps[1].config.condition`) lies in a JSON text, so a validation error
// can be placed on its line. A small scanner over text that JSON.parse already accepted.

/** Map of path -> {start, end} offsets of the value (for a property, from its key). */
export function locatePaths(text) {
  const out = new Map();
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const string = () => {
    const start = i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i));
  };
  const value = (path, from) => {
    ws();
    const start = from ?? i;
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') i++;
      else
        for (;;) {
          ws();
          const keyStart = i;
          const key = string();
          ws();
          i++; // :
          value(`${path}.${key}`, keyStart);
          ws();
          if (text[i++] === '}') break;
        }
    } else if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') i++;
      else
        for (let n = 0; ; n++) {
          value(`${path}[${n}]`);
          ws();
          if (text[i++] === ']') break;
        }
    } else if (c === '"') string();
    else while (i < text.length && !',}] \t\n\r'.includes(text[i])) i++;
    out.set(path, { start, end: i });
  };
  value('$');
  return out;
}

/** The 1-based line of an offset. */
export function lineOf(text, offset) {
  let line = 1;
  for (let k = 0; k < offset && k < text.length; k++) if (text[k] === '\n') line++;
  return line;
}

/** The location of `path`, or of its nearest ancestor present in the text (a missing key names its object). */
export function locate(map, path) {
  let p = path;
  while (p) {
    const hit = map.get(p);
    if (hit) return { ...hit, exact: p === path, path: p };
    const cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
    if (cut <= 0) break;
    p = p.slice(0, cut);
  }
  return { ...(map.get('$') || { start: 0, end: 0 }), exact: false, path: '$' };
}

/** A JSON.parse error as `{message, offset}` (V8 says "at position N" or "line L column C"). */
export function parseError(text, err) {
  const message = String(err && err.message ? err.message : err);
  let offset = 0;
  const pos = /position (\d+)/.exec(message);
  const lc = /line (\d+) column (\d+)/.exec(message);
  if (pos) offset = Number(pos[1]);
  else if (lc) {
    const lines = text.split('\n');
    for (let k = 0; k < Number(lc[1]) - 1 && k < lines.length; k++) offset += lines[k].length + 1;
    offset += Number(lc[2]) - 1;
  } else offset = text.length;
  return { message, offset };
}
