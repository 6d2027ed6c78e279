import type { Database } from 'lmdb' with { 'resolution-mode': 'require' };
import { defineToken, type TesseraError } from 'tessera-runtime/plugin';
import { sha256, type AnalysisWarning, type ImageAnalyzer } from './image-analyzer.js';
import { imageErrors } from './image-errors.js';
import type { ImageMetadata } from './image-metadata.js';
import type { VisualDocumentField } from './visual-extraction.js';

/** An image's metadata, and whether it came from the cache of images analysed before. */
export interface AnalysedBytes {
  metadata: ImageMetadata;
  /** OCR failures (`ocr_timeout`, `ocr_worker_failed`, `ocr_unavailable`): the rest of the metadata stands. */
  warnings: AnalysisWarning[];
  reused: boolean;
}

/**
 * Image metadata for other plugins (`IMAGE_METADATA_SERVICE`): the same analysis as
 * `POST /v1/tools/image-metadata` and visual extraction (the same pools, limits and cache), for a
 * caller that has the bytes, such as the control plane's file ingestion.
 */
export interface ImageMetadataService {
  /** The media types the pipeline decodes: PNG, JPEG, GIF, BMP. */
  readonly mediaTypes: readonly string[];
  /** `images.maxBytes`: the largest image accepted. */
  readonly maxBytes: number;
  /** 413 `image_too_large`, for a caller that stops reading a stream at its limit (`maxBytes` unless given). */
  tooLarge(bytes: number, limit?: number): TesseraError;
  /**
   * Analyses the bytes, or takes the metadata of the same bytes (by SHA-256) from the cache that
   * visual extraction fills; a complete result is cached. Throws the tool's errors
   * (`invalid_image`, `image_too_many_pixels`, `image_analysis_busy`, `image_analysis_timeout`, ...).
   */
  analyse(bytes: Uint8Array): Promise<AnalysedBytes>;
  /** A document's `_visual` for its images, in the shape visual extraction writes. */
  visualField(images: ReadonlyArray<{ field: string } & AnalysedBytes>): VisualDocumentField;
}

export const IMAGE_METADATA_SERVICE = defineToken<ImageMetadataService>('search.image-metadata');

export const imageMediaTypes = ['image/png', 'image/jpeg', 'image/gif', 'image/bmp'] as const;

export function createImageMetadataService(deps: {
  analyzer: () => ImageAnalyzer;
  cache: Database<ImageMetadata, string>;
  maxBytes: number;
}): ImageMetadataService {
  return {
    mediaTypes: imageMediaTypes,
    maxBytes: deps.maxBytes,
    tooLarge: (bytes, limit = deps.maxBytes) => imageErrors.image_too_large({ bytes, limit }),
    async analyse(bytes) {
      if (bytes.length > deps.maxBytes) throw imageErrors.image_too_large({ bytes: bytes.length, limit: deps.maxBytes });
      const cached = deps.cache.get(sha256(bytes));
      if (cached) return { metadata: cached, warnings: [], reused: true };
      const { metadata, warnings } = await deps.analyzer().analyse(bytes);
      // Only complete results are reused: an image whose OCR failed is read again next time.
      if (warnings.length === 0) await deps.cache.put(metadata.image.sha256, metadata);
      return { metadata, warnings, reused: false };
    },
    visualField(images) {
      const unique = (values: string[]): string[] => [...new Set(values)];
      return {
        text: images
          .map((i) => i.metadata.ocr?.text ?? '')
          .filter((t) => t !== '')
          .join('\n'),
        tags: unique(images.flatMap((i) => i.metadata.tags)),
        colors: unique(images.flatMap((i) => i.metadata.colors)),
        motifs: unique(images.flatMap((i) => i.metadata.motifs)),
        keywords: unique(images.flatMap((i) => i.metadata.suggestedKeywords)),
        images: images.map(({ field, metadata: m }) => ({
          field,
          sha256: m.image.sha256,
          format: m.image.format,
          width: m.image.width,
          height: m.image.height,
          colors: m.colorShares,
          motifs: m.motifs,
          ocrConfidence: m.ocr?.confidence ?? null,
        })),
        errors: images.flatMap(({ field, warnings }) => warnings.map((w) => ({ field, code: w.code, message: w.message }))),
        extractedAt: new Date().toISOString(),
      };
    },
  };
}
