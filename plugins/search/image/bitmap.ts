/** An RGBA bitmap as jimp holds it: 4 bytes per pixel, rows top to bottom. */
export interface Bitmap {
  width: number;
  height: number;
  data: Uint8Array;
}

/** Rec. 601 luma of one pixel, 0-255. */
export function luma(data: Uint8Array, at: number): number {
  return 0.299 * data[at]! + 0.587 * data[at + 1]! + 0.114 * data[at + 2]!;
}

/** The 12-bit colour bin of a pixel: 4 bits per channel. */
export function colorBin(data: Uint8Array, at: number): number {
  return ((data[at]! >> 4) << 8) | ((data[at + 1]! >> 4) << 4) | (data[at + 2]! >> 4);
}

/** Pixels at least this opaque count; a transparent background says nothing about colour. */
export const OPAQUE = 128;
