import { open, realpath } from 'node:fs/promises';
import path from 'node:path';
import { isTesseraError, type PluginContext } from 'tessera-runtime/plugin';
import { imageErrors, pathNotAllowed } from './image-errors.js';
import type { ImageLimits } from './image-options.js';

export interface ImageSourceOptions {
  mediaRoot?: string;
  allowRemoteImages: boolean;
  images: ImageLimits;
}

/** Where `image` and `bufferBase64` read bytes from; `outbound` is ctx.outbound (the egress policy). */
export interface ImageSourceContext {
  options: ImageSourceOptions;
  outbound: PluginContext['outbound'];
  signal?: AbortSignal;
}

const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;
const BASE64URL = /^[A-Za-z0-9_\-\s]*={0,2}\s*$/;

/**
 * The bytes of the image a request names: exactly one of `bufferBase64` (base64 bytes) or
 * `image` (a `data:` URI, an http(s) URL when remote images are on, or a path inside mediaRoot).
 */
export async function readImageSource(body: { image?: string; bufferBase64?: string }, ctx: ImageSourceContext): Promise<Uint8Array> {
  const given = (body.image !== undefined ? 1 : 0) + (body.bufferBase64 !== undefined ? 1 : 0);
  if (given !== 1) {
    throw imageErrors.image_input_invalid({
      reason: given === 0 ? 'Send the image as `image` (a data: URI, URL or path) or `bufferBase64`.' : 'Send either `image` or `bufferBase64`, not both.',
    });
  }
  if (body.bufferBase64 !== undefined) return checkedSize(decodeBase64(body.bufferBase64, 'bufferBase64'), ctx.options.images.maxBytes);
  return readImageReference(body.image!, ctx);
}

/** An `image` reference (also what an image field of a document holds). */
export async function readImageReference(reference: string, ctx: ImageSourceContext): Promise<Uint8Array> {
  const limit = ctx.options.images.maxBytes;
  if (/^data:/i.test(reference)) return checkedSize(decodeDataUri(reference), limit);
  if (/^https?:\/\//i.test(reference)) return fetchRemote(reference, ctx);
  if (/^[a-z][a-z0-9+.-]*:/i.test(reference) && !/^[a-z]:[\\/]/i.test(reference)) {
    throw imageErrors.image_input_invalid({ reason: `Unsupported image reference scheme in "${reference.slice(0, 40)}": use data:, http(s) or a path.` });
  }
  return readMediaFile(reference, ctx.options.mediaRoot, limit);
}

function checkedSize(bytes: Uint8Array, limit: number): Uint8Array {
  if (bytes.length > limit) throw imageErrors.image_too_large({ bytes: bytes.length, limit });
  return bytes;
}

function decodeBase64(text: string, field: string): Uint8Array {
  if (!BASE64.test(text) && !BASE64URL.test(text)) throw imageErrors.image_input_invalid({ reason: `\`${field}\` is not base64.` });
  return new Uint8Array(Buffer.from(text, 'base64'));
}

function decodeDataUri(uri: string): Uint8Array {
  const comma = uri.indexOf(',');
  if (comma < 0) throw imageErrors.image_input_invalid({ reason: 'A data: URI needs a comma before its data.' });
  const meta = uri.slice(5, comma);
  const data = uri.slice(comma + 1);
  if (/;base64$/i.test(meta)) return decodeBase64(data, 'image');
  try {
    return new Uint8Array(Buffer.from(decodeURIComponent(data), 'latin1'));
  } catch {
    throw imageErrors.image_input_invalid({ reason: 'The data: URI is not valid percent-encoding.' });
  }
}

async function fetchRemote(url: string, ctx: ImageSourceContext): Promise<Uint8Array> {
  const { images, allowRemoteImages } = ctx.options;
  if (!allowRemoteImages) throw imageErrors.remote_images_disabled({ url });
  try {
    const res = await ctx.outbound.fetch(url, {
      allow: { allowHosts: images.remoteHosts },
      maxBytes: images.maxBytes,
      timeoutMs: images.remoteTimeoutMs,
      headers: { accept: 'image/*' },
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
    if (res.status !== 200) {
      await res.discard();
      throw imageErrors.invalid_image({ reason: `${url} answered HTTP ${res.status}` }, { details: { url, status: res.status } });
    }
    return new Uint8Array(await res.bytes());
  } catch (err) {
    // The download limit is the image size limit: answer it as such (413), not as an upstream fault.
    if (isTesseraError(err) && err.code === 'upstream_too_large')
      throw imageErrors.image_too_large({ bytes: `more than ${images.maxBytes}`, limit: images.maxBytes });
    throw err;
  }
}

/**
 * A file under mediaRoot. The path is resolved against the root, `..` removed, then symbolic
 * links followed (realpath), and the real path must still lie inside the root's real path.
 */
async function readMediaFile(reference: string, mediaRoot: string | undefined, limit: number): Promise<Uint8Array> {
  if (mediaRoot === undefined) throw pathNotAllowed('Image paths are not allowed: the search plugin has no mediaRoot.', reference);
  if (reference.includes('\0')) throw pathNotAllowed('The image path holds a NUL character.', reference);
  const root = await realpath(mediaRoot).catch(() => path.resolve(mediaRoot));
  const lexical = path.resolve(root, reference);
  if (!inside(root, lexical)) throw pathNotAllowed(`"${reference}" lies outside the media root.`, reference);
  let real: string;
  try {
    real = await realpath(lexical);
  } catch {
    throw imageErrors.image_not_found({ path: reference });
  }
  if (!inside(root, real)) throw pathNotAllowed(`"${reference}" leads outside the media root (symbolic link).`, reference);
  const file = await open(real, 'r').catch(() => undefined);
  if (!file) throw imageErrors.image_not_found({ path: reference });
  try {
    const stat = await file.stat();
    if (!stat.isFile()) throw imageErrors.image_not_found({ path: reference });
    if (stat.size > limit) throw imageErrors.image_too_large({ bytes: stat.size, limit });
    const bytes = new Uint8Array(stat.size);
    const { bytesRead } = await file.read(bytes, 0, stat.size, 0);
    return bytes.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

function inside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}
