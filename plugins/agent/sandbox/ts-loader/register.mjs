// Tessera's TypeScript loader for sandboxed test runs: `node --import <this file> --test a.test.ts`.
// Registers hooks.mjs, which strips types with amaro (Node's own type stripper: swc in WASM).
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
