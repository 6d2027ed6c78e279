// The slice of the WebAssembly JS API the kernels use. TypeScript ships these types only in
// lib.dom, which this Node project does not load; if the project ever adds "DOM" to `lib`,
// delete this file.
declare namespace WebAssembly {
  interface MemoryDescriptor {
    initial: number;
    maximum?: number;
    shared?: boolean;
  }
  class Memory {
    constructor(descriptor: MemoryDescriptor);
    readonly buffer: ArrayBuffer | SharedArrayBuffer;
    grow(delta: number): number;
  }
  class Module {
    constructor(bytes: ArrayBufferView | ArrayBuffer);
    static imports(module: Module): { module: string; name: string; kind: string }[];
    static exports(module: Module): { name: string; kind: string }[];
  }
  type ImportValue = Memory | ((...args: never[]) => unknown) | number;
  type Imports = Record<string, Record<string, ImportValue>>;
  class Instance {
    constructor(module: Module, imports?: Imports);
    readonly exports: Record<string, unknown>;
  }
  class RuntimeError extends Error {}
  class CompileError extends Error {}
  class LinkError extends Error {}
}
