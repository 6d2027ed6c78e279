/** mulberry32: a small seeded PRNG, so every bench input is the same on every machine and run. */
export { mulberry32 as prng } from '../../kernels/src/prng.js';
