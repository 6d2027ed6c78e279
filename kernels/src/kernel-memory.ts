import { KernelInvalidInputError, KernelOutOfMemoryError } from './errors.js';

export const PAGE_BYTES = 65536;
/** wasm32 addresses 4 GiB at most: 65536 pages. */
export const MAX_PAGES = 65536;

/**
 * The one shared `WebAssembly.Memory` every kernel instance runs on, with typed-array views that
 * are re-created whenever the memory has grown. Growing a shared memory does not detach the old
 * buffer, but the old views stop at the old length, so every read goes through these getters.
 */
export class KernelMemory {
  readonly memory: WebAssembly.Memory;
  readonly maximumPages: number;
  private buffer!: SharedArrayBuffer;
  private u8View!: Uint8Array;
  private u16View!: Uint16Array;
  private u32View!: Uint32Array;
  private i32View!: Int32Array;
  private f32View!: Float32Array;
  private f64View!: Float64Array;

  constructor(initialPages: number, maximumPages: number) {
    if (!Number.isInteger(initialPages) || !Number.isInteger(maximumPages) || initialPages < 1 || maximumPages > MAX_PAGES || initialPages > maximumPages) {
      throw new KernelInvalidInputError(`memory pages must satisfy 1 <= initial (${initialPages}) <= maximum (${maximumPages}) <= ${MAX_PAGES}`);
    }
    this.memory = new WebAssembly.Memory({ initial: initialPages, maximum: maximumPages, shared: true });
    this.maximumPages = maximumPages;
    this.refresh();
  }

  get byteLength(): number {
    return this.current().byteLength;
  }

  get u8(): Uint8Array {
    this.current();
    return this.u8View;
  }
  get u16(): Uint16Array {
    this.current();
    return this.u16View;
  }
  get u32(): Uint32Array {
    this.current();
    return this.u32View;
  }
  get i32(): Int32Array {
    this.current();
    return this.i32View;
  }
  get f32(): Float32Array {
    this.current();
    return this.f32View;
  }
  get f64(): Float64Array {
    this.current();
    return this.f64View;
  }

  /** Grows so at least `bytes` are addressable; throws kernel_out_of_memory past the maximum. */
  ensure(bytes: number): void {
    const have = this.byteLength;
    if (bytes <= have) return;
    const pages = have / PAGE_BYTES;
    const needed = Math.ceil(bytes / PAGE_BYTES);
    if (needed > this.maximumPages) {
      throw new KernelOutOfMemoryError(`kernel memory needs ${needed} pages (${(needed / 16).toFixed(1)} MB) but its maximum is ${this.maximumPages} pages`);
    }
    // Grow by at least a quarter so a stream of small allocations does not grow page by page.
    const target = Math.min(this.maximumPages, Math.max(needed, Math.ceil(pages * 1.25)));
    this.memory.grow(target - pages);
    this.refresh();
  }

  private current(): SharedArrayBuffer {
    // Another thread may have grown the memory; `memory.buffer` then reports the new length.
    const buffer = this.memory.buffer as unknown as SharedArrayBuffer;
    if (buffer !== this.buffer) this.refresh();
    return this.buffer;
  }

  private refresh(): void {
    const buffer = this.memory.buffer as unknown as SharedArrayBuffer;
    this.buffer = buffer;
    this.u8View = new Uint8Array(buffer);
    this.u16View = new Uint16Array(buffer);
    this.u32View = new Uint32Array(buffer);
    this.i32View = new Int32Array(buffer);
    this.f32View = new Float32Array(buffer);
    this.f64View = new Float64Array(buffer);
  }
}
