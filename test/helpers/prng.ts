/** mulberry32: a small seeded PRNG, so random-input tests fail the same way every run. */
export { mulberry32 as prng } from '../../kernels/src/prng.js';
