/**
 * Reads an image's format and pixel size from its header, before any decoder allocates a bitmap:
 * the pixel limit must hold before decoding, or a small file that declares 50,000 x 50,000 pixels
 * (a decompression bomb) would take gigabytes. The formats are the ones jimp decodes by default
 * and Leptonica (tesseract) reads: PNG, JPEG, GIF and BMP.
 */
export type ImageFormat = 'png' | 'jpeg' | 'gif' | 'bmp';

export interface ImageHeader {
  format: ImageFormat;
  width: number;
  height: number;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** The header of a PNG, JPEG, GIF or BMP image, or `undefined` when the bytes are none of these or are cut short. */
export function readImageHeader(bytes: Uint8Array): ImageHeader | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length >= 24 && PNG_SIGNATURE.every((b, i) => bytes[i] === b)) {
    return sized('png', view.getUint32(16), view.getUint32(20));
  }
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) return readJpeg(bytes, view);
  if (bytes.length >= 10 && bytes[0] === 0x47 && bytes[1] === 0x49 && bytes[2] === 0x46 && bytes[3] === 0x38) {
    return sized('gif', view.getUint16(6, true), view.getUint16(8, true));
  }
  if (bytes.length >= 26 && bytes[0] === 0x42 && bytes[1] === 0x4d) {
    return sized('bmp', Math.abs(view.getInt32(18, true)), Math.abs(view.getInt32(22, true)));
  }
  return undefined;
}

function sized(format: ImageFormat, width: number, height: number): ImageHeader | undefined {
  return width > 0 && height > 0 ? { format, width, height } : undefined;
}

/** Walks the JPEG markers to the first start-of-frame (SOF0..SOF15 but DHT, JPG and DAC). */
function readJpeg(bytes: Uint8Array, view: DataView): ImageHeader | undefined {
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return undefined;
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      at += 2;
      continue;
    }
    const length = view.getUint16(at + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return sized('jpeg', view.getUint16(at + 7), view.getUint16(at + 5));
    }
    if (length < 2) return undefined;
    at += 2 + length;
  }
  return undefined;
}
