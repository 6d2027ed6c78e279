// A POSIX ustar archive built in the page, so a bundle the server answers as JSON
// (`{files: {path: content}}`) downloads as one file that `tar -xf` unpacks.

const encoder = new TextEncoder();

function field(block, offset, length, text) {
  const bytes = encoder.encode(text);
  block.set(bytes.subarray(0, length), offset);
}

function octal(n, length) {
  return n.toString(8).padStart(length - 1, '0') + '\0';
}

/** Splits a path longer than 100 bytes into ustar's prefix (155) and name (100) at a slash. */
function splitName(path) {
  if (encoder.encode(path).length <= 100) return ['', path];
  const cut = path.lastIndexOf('/', 155);
  if (cut <= 0 || encoder.encode(path.slice(cut + 1)).length > 100) throw new Error('path too long for a tar archive: ' + path);
  return [path.slice(0, cut), path.slice(cut + 1)];
}

/** `files`: `{relativePath: text}`; `root`: a folder every entry is put under. A Uint8Array. */
export function tarArchive(files, { root = '', mtime = Math.floor(Date.now() / 1000) } = {}) {
  const chunks = [];
  const dirs = new Set();
  const entries = Object.keys(files).sort();
  const header = (name, size, type) => {
    const block = new Uint8Array(512);
    const [prefix, base] = splitName(name);
    field(block, 0, 100, base);
    field(block, 100, 8, octal(type === '5' ? 0o755 : 0o644, 8));
    field(block, 108, 8, octal(0, 8));
    field(block, 116, 8, octal(0, 8));
    field(block, 124, 12, octal(size, 12));
    field(block, 136, 12, octal(mtime, 12));
    field(block, 148, 8, '        ');
    field(block, 156, 1, type);
    field(block, 257, 6, 'ustar\0');
    field(block, 263, 2, '00');
    field(block, 345, 155, prefix);
    let sum = 0;
    for (const b of block) sum += b;
    field(block, 148, 8, sum.toString(8).padStart(6, '0') + '\0 ');
    chunks.push(block);
  };
  const prefix = root ? root.replace(/\/+$/, '') + '/' : '';
  for (const path of entries) {
    const full = prefix + path;
    const parts = full.split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/') + '/';
      if (!dirs.has(dir)) {
        dirs.add(dir);
        header(dir, 0, '5');
      }
    }
    const data = encoder.encode(files[path]);
    header(full, data.length, '0');
    chunks.push(data);
    const pad = (512 - (data.length % 512)) % 512;
    if (pad) chunks.push(new Uint8Array(pad));
  }
  chunks.push(new Uint8Array(1024));
  const total = chunks.reduce((n, c) => n + c.length, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** Offers bytes as a download named `filename` (a blob URL, revoked after the click). */
export function download(bytes, filename, type = 'application/octet-stream') {
  const url = URL.createObjectURL(new Blob([bytes], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
