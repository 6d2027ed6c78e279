import { existsSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

/** Reads a texmex .fvecs/.ivecs file (optionally gzipped): per record an i32 dim, then dim values. */
export function readVecs(path: string, kind: 'f' | 'i'): { dims: number; count: number; data: Float32Array | Int32Array } {
  let bytes = readFileSync(path);
  if (path.endsWith('.gz')) bytes = gunzipSync(bytes);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dims = view.getInt32(0, true);
  const count = bytes.byteLength / (4 + dims * 4);
  const data = kind === 'f' ? new Float32Array(count * dims) : new Int32Array(count * dims);
  for (let r = 0; r < count; r++) {
    const base = r * (4 + dims * 4) + 4;
    for (let j = 0; j < dims; j++) {
      data[r * dims + j] = kind === 'f' ? view.getFloat32(base + j * 4, true) : view.getInt32(base + j * 4, true);
    }
  }
  return { dims, count, data };
}

export const MNIST_DIR = new URL('../../../../shared/data/vectors/mnist10k/', import.meta.url);

export const mnistAvailable = (): boolean => existsSync(new URL('base.fvecs.gz', MNIST_DIR));
