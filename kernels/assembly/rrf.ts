import { topKBegin, topKOffer, topKFinish } from "./top-k";

// Reciprocal rank fusion: score(id) = sum over lists of weight / (rankConstant + rank), rank from 1.
// Ids are ordinals in one id space of `idSpace` ids. Scratch layout:
//   f32 acc[idSpace] | u8 seen[idSpace] (padded to 4) | u32 touched[total entries]
// Only entries the lists touch are cleared and read, so cost follows the list lengths, not idSpace.
// List table, 16 bytes per list: u32 idsPtr, u32 length, f32 weight, u32 unused.

export const RRF_LIST_ENTRY_BYTES: i32 = 16;

export function rrfFuse(
  listTablePtr: usize, listCount: i32, rankConstant: f32,
  idSpace: i32, scratchPtr: usize, heapPtr: usize, k: i32,
): i32 {
  const acc = scratchPtr;
  const seen = acc + (<usize>idSpace << 2);
  const touched = seen + ((<usize>idSpace + 3) & ~3);
  for (let l = 0; l < listCount; l++) {
    const e = listTablePtr + <usize>l * <usize>RRF_LIST_ENTRY_BYTES;
    const ids = <usize>load<u32>(e);
    const n = load<i32>(e, 4);
    for (let i = 0; i < n; i++) {
      const id = load<u32>(ids + (<usize>i << 2));
      store<f32>(acc + (<usize>id << 2), 0);
      store<u8>(seen + <usize>id, 0);
    }
  }
  let touchedCount = 0;
  for (let l = 0; l < listCount; l++) {
    const e = listTablePtr + <usize>l * <usize>RRF_LIST_ENTRY_BYTES;
    const ids = <usize>load<u32>(e);
    const n = load<i32>(e, 4);
    const weight = load<f32>(e, 8);
    for (let i = 0; i < n; i++) {
      const id = load<u32>(ids + (<usize>i << 2));
      const ap = acc + (<usize>id << 2);
      store<f32>(ap, load<f32>(ap) + weight / (rankConstant + <f32>(i + 1)));
      if (load<u8>(seen + <usize>id) == 0) {
        store<u8>(seen + <usize>id, 1);
        store<u32>(touched + (<usize>touchedCount << 2), id);
        touchedCount++;
      }
    }
  }
  topKBegin<f32>(heapPtr, k);
  for (let t = 0; t < touchedCount; t++) {
    const id = load<u32>(touched + (<usize>t << 2));
    topKOffer<f32>(load<f32>(acc + (<usize>id << 2)), id);
  }
  return topKFinish<f32>();
}
