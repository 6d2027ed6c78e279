import { defineErrors, PermissionError } from 'tessera-runtime/plugin';

/** Errors of `POST /v1/tools/image-metadata` (and of visual extraction, per document). */
export const imageErrors = defineErrors({
  image_input_invalid: {
    status: 400,
    message: '{reason}',
    when: 'The image-metadata body has neither `image` nor `bufferBase64`, or both; or `image` is not a data: URI, an http(s) URL or a path; or `bufferBase64` is not base64.',
  },
  invalid_image: {
    status: 422,
    message: 'The image cannot be decoded: {reason}',
    when: 'The bytes are empty, not a PNG, JPEG, GIF or BMP image, or cut short (a truncated file); or a remote image answered other than 200.',
  },
  image_too_large: {
    status: 413,
    message: 'The image is {bytes} bytes; the limit is {limit} bytes.',
    when: 'The decoded image bytes (base64, data: URI, file or download) exceed `images.maxBytes` (default 20 MB).',
  },
  image_too_many_pixels: {
    status: 422,
    message: 'The image is {width} x {height} pixels; the limit is {limit} pixels.',
    when: 'The image header declares more pixels than `images.maxPixels` (default 40 million): refused before decoding, so a decompression bomb costs nothing.',
  },
  image_not_found: {
    status: 404,
    message: 'No file "{path}" under the media root.',
    when: '`image` names a path inside `mediaRoot` that does not exist or is not a regular file.',
  },
  remote_images_disabled: {
    status: 403,
    message: 'Remote images are off: set plugins.search.options.allowRemoteImages to fetch "{url}".',
    when: '`image` is an http(s) URL and `allowRemoteImages` is off (the default).',
  },
  image_analysis_busy: {
    status: 429,
    message: 'Image analysis is at capacity ({pending} images in progress); retry shortly.',
    when: 'More images are being analysed or waiting than `images.workers + images.maxQueue`; the answer carries Retry-After.',
  },
  image_analysis_timeout: {
    status: 503,
    message: 'Image analysis took longer than {timeoutMs} ms.',
    when: 'Decoding and measuring the image did not finish within `images.timeoutMs` (OCR past its own budget gives `ocr: null` and a warning instead).',
  },
});

/**
 * 403 `path_not_allowed`: an image path with no `mediaRoot`, or outside it. The code is the one the
 * scanner declares for paths outside its roots (codes are unique across plugins, and its docs line
 * names both uses), so it is raised here without a second declaration.
 */
export function pathNotAllowed(reason: string, path: string): PermissionError {
  return new PermissionError('path_not_allowed', reason, { details: { path } });
}
