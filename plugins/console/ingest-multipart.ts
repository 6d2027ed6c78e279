import { Readable } from 'node:stream';
import busboy from 'busboy';
import { errors } from './errors.js';

export interface UploadedFile {
  filename: string;
  mimeType: string;
  stream: Readable;
}

/**
 * Reads a `multipart/form-data` body and hands its files to `onFile` one after the other, while
 * they arrive: a file is read as it streams in, and the socket is not read further while `onFile`
 * is busy (backpressure), so memory stays at one chunk whatever the upload's size. Fields other
 * than files are ignored.
 */
export async function eachFile(
  contentType: string,
  body: AsyncIterable<Uint8Array>,
  onFile: (file: UploadedFile) => Promise<void>,
  limits: { files: number },
): Promise<void> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: { 'content-type': contentType }, limits: { files: limits.files, fieldSize: 64 * 1024 } });
  } catch (err) {
    throw errors.ingest_multipart_invalid({ reason: (err as Error).message });
  }
  let chain = Promise.resolve();
  let failure: unknown;
  parser.on('file', (_field, stream, info) => {
    chain = chain.then(async () => {
      if (failure !== undefined) {
        stream.resume();
        return;
      }
      try {
        await onFile({ filename: info.filename || 'upload', mimeType: info.mimeType, stream });
      } catch (err) {
        failure ??= err;
      }
      // Whatever was not read (a file given up on) is drained so the next part can arrive.
      stream.resume();
    });
  });
  const source = Readable.from(body);
  const done = new Promise<void>((resolve, reject) => {
    parser.on('close', resolve);
    parser.on('error', (err: Error) => reject(errors.ingest_multipart_invalid({ reason: err.message })));
    source.on('error', reject);
  });
  source.pipe(parser);
  try {
    await done;
  } finally {
    await chain;
  }
  if (failure !== undefined) throw failure;
}
