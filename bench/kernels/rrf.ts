import { reference, type KernelRunner } from '../../kernels/src/index.js';
import { checkSame } from './check.js';
import { prng, rankedList } from './data.js';
import { emit, measure, round } from './measure.js';

/** RRF of two ranked lists of 1,000 ids (300 in common) from a 1M id space. */
export async function benchRrf(runner: KernelRunner, minMs: number): Promise<number> {
  const rand = prng(60);
  const shared = Array.from({ length: 300 }, (_, i) => i * 3000 + 7);
  const lists = [rankedList(rand, 1000, 1_000_000, shared), rankedList(rand, 1000, 1_000_000, shared)];
  const query = { lists, k: 10, weights: [1, 0.7], idSpace: 1_000_000 };
  checkSame('rrf', await runner.rrf(query), reference.rrfFuse(query));
  const kernelMs = await measure(() => runner.rrf(query), { minMs });
  const referenceMs = await measure(() => reference.rrfFuse(query), { minMs });
  emit({
    bench: 'rrf',
    lists: 2,
    length: 1000,
    us: round(kernelMs * 1000, 1),
    referenceUs: round(referenceMs * 1000, 1),
    vsReference: round(referenceMs / kernelMs, 1),
  });
  return referenceMs / kernelMs;
}
