import { isTesseraError } from 'tessera-runtime/plugin';
import type { ImageMetadataService } from '../search/index.js';

/** The media types an image may be declared with, as the pipeline names them (aliases included). */
const aliases: Record<string, string> = { 'image/jpg': 'image/jpeg', 'image/pjpeg': 'image/jpeg', 'image/x-ms-bmp': 'image/bmp', 'image/x-bmp': 'image/bmp' };
const byExtension: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  bmp: 'image/bmp',
  webp: 'image/webp',
  tif: 'image/tiff',
  tiff: 'image/tiff',
};

/** Every image type the route takes as a body (the ones the pipeline cannot decode are refused by name, not as unknown). */
export const imageBodyTypes = ['image/png', 'image/jpeg', 'image/jpg', 'image/gif', 'image/bmp', 'image/x-ms-bmp', 'image/webp', 'image/tiff'];

/** An image's media type from its declared type, or from its file name when the type says nothing (`application/octet-stream`). */
export function imageTypeOf(mediaType: string, filename: string | null): string {
  const type = mediaType.toLowerCase();
  if (type.startsWith('image/')) return aliases[type] ?? type;
  const ext = filename?.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1];
  return (ext && byExtension[ext]) ?? type;
}

/**
 * Why an image type is not read, or undefined when the pipeline decodes it. A type that names no
 * image (`?format=image` on `application/octet-stream`) is left to the decoder, which reads the
 * format from the bytes.
 */
export function unsupportedImage(type: string, images: ImageMetadataService): string | undefined {
  if (!type.startsWith('image/') || images.mediaTypes.includes(type)) return undefined;
  const names = images.mediaTypes.map((t) => t.slice('image/'.length).toUpperCase()).join(', ');
  return `${type} images are not decoded by the image-metadata pipeline, which reads ${names}: convert the image first.`;
}

/** The image's bytes, read whole (decoding needs them all), or its size when it is over `maxBytes`: nothing past the limit is kept. */
export async function readImage(stream: AsyncIterable<Uint8Array>, maxBytes: number, drain: boolean): Promise<{ bytes: Uint8Array } | { tooLarge: number }> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      parts.length = 0;
      if (!drain) return { tooLarge: size };
      continue;
    }
    // A copy: the stream may reuse the chunk's memory.
    parts.push(Uint8Array.from(chunk));
  }
  if (size > maxBytes) return { tooLarge: size };
  return { bytes: Buffer.concat(parts, size) };
}

/**
 * The document of one image: its id, `file` (name, type, size, SHA-256, format and pixel size)
 * and `_visual`, the metadata in the shape visual extraction writes, so the index's `_visual.*`
 * mappings (present on any index with an image field) make it searchable and filterable.
 */
export function imageDocument(
  id: string,
  file: { name: string | null; type: string },
  analysed: Awaited<ReturnType<ImageMetadataService['analyse']>>,
  images: ImageMetadataService,
): Record<string, unknown> {
  const { image } = analysed.metadata;
  return {
    id,
    file: {
      ...(file.name !== null ? { name: file.name } : {}),
      type: file.type,
      bytes: image.bytes,
      sha256: image.sha256,
      format: image.format,
      width: image.width,
      height: image.height,
    },
    _visual: images.visualField([{ field: 'file', ...analysed }]),
  };
}

/** Analyses one image; a full queue (`image_analysis_busy`) is waited out a few times before the image fails. */
export async function analyseImage(
  images: ImageMetadataService,
  bytes: Uint8Array,
  signal: AbortSignal,
): Promise<Awaited<ReturnType<ImageMetadataService['analyse']>>> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await images.analyse(bytes);
    } catch (err) {
      if (!(isTesseraError(err) && err.code === 'image_analysis_busy') || attempt >= busyAttempts || signal.aborted) throw err;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

const busyAttempts = 10;

/** A failure of one image as an item error: the tool's code and message; anything unexpected is not described to the client. */
export function imageFailure(err: unknown): { code: string; message: string } {
  if (isTesseraError(err) && err.status < 500) return { code: err.code, message: err.message };
  if (isTesseraError(err) && err.code === 'image_analysis_timeout') return { code: err.code, message: err.message };
  return { code: 'internal_error', message: 'The image could not be analysed.' };
}
