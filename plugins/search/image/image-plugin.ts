import { z } from 'zod';
import type { PluginContext } from 'tessera-runtime/plugin';
import type { SearchOptions } from '../options.js';
import type { SearchEngine } from '../index/search-engine.js';
import { ImageAnalyzer } from './image-analyzer.js';
import type { ImageMetadata } from './image-metadata.js';
import { createImageMetadataService, IMAGE_METADATA_SERVICE } from './image-metadata-service.js';
import { readImageSource, type ImageSourceContext } from './image-source.js';
import { VisualExtraction } from './visual-extraction.js';

const imageMetadataBody = z.strictObject({
  /** A data: URI, an http(s) URL (with allowRemoteImages) or a path inside mediaRoot. */
  image: z.string().min(1).optional(),
  /** The image bytes, base64. */
  bufferBase64: z.string().optional(),
});

/**
 * Image metadata in the search plugin: the `POST /v1/tools/image-metadata` route (seed 000 puts it
 * on the search engine's port, 3848) and visual extraction at ingest. The analyzer (its decoder
 * threads and tesseract workers) starts on first use.
 */
export function registerImageFeatures(ctx: PluginContext<SearchOptions>): { attach(engine: SearchEngine): void; visual: VisualExtraction } {
  let analyzer: ImageAnalyzer | undefined;
  const images = (): ImageAnalyzer => (analyzer ??= new ImageAnalyzer(ctx.config.images));
  const sources = (signal?: AbortSignal): ImageSourceContext => ({
    options: { mediaRoot: ctx.config.mediaRoot, allowRemoteImages: ctx.config.allowRemoteImages, images: ctx.config.images },
    outbound: ctx.outbound,
    ...(signal ? { signal } : {}),
  });
  const cache = ctx.store.db<ImageMetadata, string>('visual-cache');
  const visual = new VisualExtraction({
    jobs: ctx.jobs,
    log: ctx.log,
    analyzer: images,
    sources: () => sources(),
    cache,
  });
  ctx.provide(IMAGE_METADATA_SERVICE, { useValue: createImageMetadataService({ analyzer: images, cache, maxBytes: ctx.config.images.maxBytes }) });

  ctx.routes.add({
    method: 'POST',
    path: '/v1/tools/image-metadata',
    permission: 'search:read',
    throttle: 'heavy',
    // base64 is 4/3 of the bytes; a data: URI or JSON adds a little.
    bodyLimit: Math.ceil((ctx.config.images.maxBytes * 4) / 3) + 64 * 1024,
    summary: 'Extract text, colours and motifs from an image',
    tags: ['tools'],
    body: imageMetadataBody,
    async handler({ body, signal }) {
      const bytes = await readImageSource(body, sources(signal));
      const { metadata, warnings, timings } = await images().analyse(bytes);
      return { metadata, ...(warnings.length > 0 ? { warnings } : {}), timings };
    },
  });

  ctx.onStop(async () => {
    await analyzer?.close();
  });
  return { attach: (engine) => visual.attach(engine), visual };
}
