import { KernelInvalidInputError } from './errors.js';
import { assertOpen, runTasks, usePool, withScratch, type ExecutionMode, type KernelContext } from './kernel-context.js';
import { RRF_LIST_ENTRY_BYTES } from './kernel-exports.js';
import { emptyTopK, readTopK, topKBytes, type TopK } from './top-k.js';
import { assertFinite, assertInteger, assertK, assertKnownKeys, assertLength } from './validate.js';

export interface RrfQuery {
  /** Ranked lists, best first; ids are ordinals in one id space. */
  lists: ArrayLike<number>[];
  k: number;
  /** One weight per list. @default 1 for every list */
  weights?: number[];
  /** RRF's k: score = sum of weight / (rankConstant + rank). @default 60 */
  rankConstant?: number;
  /** Ids are < idSpace. @default largest id + 1 */
  idSpace?: number;
  /** @default 'auto' */
  mode?: ExecutionMode;
}

function validate(ctx: KernelContext, q: RrfQuery): number {
  assertOpen(ctx);
  assertKnownKeys('rrf query', q, ['lists', 'k', 'weights', 'rankConstant', 'idSpace', 'mode']);
  assertK(q.k);
  if (q.weights) {
    assertLength('weights', q.weights, q.lists.length);
    q.weights.forEach((w, i) => assertFinite(`weights[${i}]`, w));
  }
  if (q.rankConstant !== undefined) {
    assertFinite('rankConstant', q.rankConstant);
    if (q.rankConstant < 0) throw new KernelInvalidInputError(`rankConstant must be >= 0, got ${q.rankConstant}`);
  }
  let maxId = -1;
  q.lists.forEach((list, l) => {
    for (let i = 0; i < list.length; i++) {
      const id = list[i]!;
      if (!Number.isInteger(id) || id < 0 || id > 0xfffffffe) {
        throw new KernelInvalidInputError(`lists[${l}][${i}] must be an integer id, got ${id}`);
      }
      if (id > maxId) maxId = id;
    }
  });
  if (q.idSpace === undefined) return maxId + 1;
  assertInteger('idSpace', q.idSpace, maxId + 1, 0xffffffff);
  return q.idSpace;
}

/**
 * Reciprocal rank fusion of ranked lists into a top k. The lists are copied into scratch (they are
 * the answers of earlier kernel calls, small by nature); accumulators are dense over idSpace but
 * only the touched entries are cleared, so the cost follows the list lengths.
 */
export async function rrfFuse(ctx: KernelContext, q: RrfQuery): Promise<TopK> {
  const idSpace = validate(ctx, q);
  const total = q.lists.reduce((n, l) => n + l.length, 0);
  if (total === 0) return emptyTopK();
  const keep = Math.min(q.k, total);
  const pooled = usePool(ctx, q.mode ?? 'auto', total * 16);
  const accBytes = idSpace * 4 + Math.ceil(idSpace / 4) * 4 + total * 4;
  const sizes = [total * 4, q.lists.length * RRF_LIST_ENTRY_BYTES, accBytes, topKBytes(keep)];
  return withScratch(ctx, sizes, async ([ids, table, acc, heap]) => {
    const u32 = ctx.memory.u32;
    const f32 = ctx.memory.f32;
    let at = ids!.offset;
    q.lists.forEach((list, l) => {
      u32.set(list, at >>> 2);
      const e = (table!.offset + l * RRF_LIST_ENTRY_BYTES) >>> 2;
      u32[e] = at;
      u32[e + 1] = list.length;
      f32[e + 2] = q.weights?.[l] ?? 1;
      u32[e + 3] = 0;
      at += list.length * 4;
    });
    const [count] = await runTasks(
      ctx,
      [
        {
          kernel: 'rrfFuse',
          args: [table!.offset, q.lists.length, q.rankConstant ?? 60, idSpace, acc!.offset, heap!.offset, keep],
        },
      ],
      pooled,
    );
    return readTopK(ctx.memory, heap!.offset, keep, count!);
  });
}
