#!/usr/bin/env node
// The CLI runs from the compiled tree; `npm run build` (or `npm start`, which builds when needed) makes it.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/runtime/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('tessera: dist/ is missing; run `npm run build` first.\n');
  process.exit(1);
}
const { main } = await import(cli.href);
const code = await main(process.argv.slice(2));
process.exitCode = code;
// Exit once pending log writes are out; a stray handle must not keep a stopped server alive.
setTimeout(() => process.exit(code), 1000).unref();
