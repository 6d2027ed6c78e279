import { execFileSync } from 'node:child_process';

/**
 * ImageMagick's `convert` (Debian package imagemagick, installed by .ci/run). A `convert` on PATH
 * that is not ImageMagick (a stand-in) is passed over for the next candidate.
 */
function findConvert(): string | undefined {
  for (const candidate of ['magick', '/usr/bin/convert', 'convert']) {
    try {
      if (execFileSync(candidate, ['-version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).includes('ImageMagick')) return candidate;
    } catch {
      // not this one
    }
  }
  return undefined;
}

export const convertBinary = findConvert();
export const noImageMagick =
  convertBinary === undefined ? 'ImageMagick is not installed: apt-get install -y --no-install-recommends imagemagick (or run .ci/run)' : '';

/** Renders an image with ImageMagick: `args` are convert's arguments without the output; returns the encoded bytes. */
export function render(args: string[], format = 'png'): Buffer {
  if (!convertBinary) throw new Error(noImageMagick);
  return execFileSync(convertBinary, [...args, `${format}:-`], { maxBuffer: 256 * 1024 * 1024 });
}

/** Text in a font, size and colours, on a canvas that fits it. */
export function renderText(text: string, options: { font?: string; size?: number; fill?: string; background?: string } = {}): Buffer {
  const size = options.size ?? 32;
  return render([
    '-background',
    options.background ?? 'white',
    '-fill',
    options.fill ?? 'black',
    '-font',
    options.font ?? 'DejaVu-Sans',
    '-pointsize',
    String(size),
    '-bordercolor',
    options.background ?? 'white',
    `label:${text}`,
    '-border',
    String(Math.round(size / 2)),
  ]);
}

/** The generated motif set: one renderer per class, varied by colours and sizes. */
export const motifRenderers = {
  solid: (a: string) => render(['-size', '320x240', `xc:${a}`]),
  gradient: (a: string, b: string) => render(['-size', '320x240', `gradient:${a}-${b}`]),
  horizontal_stripes: (a: string, b: string, period = 40) =>
    render(['-size', `1x${period}`, `xc:${a}`, `xc:${b}`, '-append', '-write', 'mpr:t', '+delete', '-size', '320x240', 'tile:mpr:t']),
  vertical_stripes: (a: string, b: string, period = 40) =>
    render(['-size', `${period}x1`, `xc:${a}`, `xc:${b}`, '+append', '-write', 'mpr:t', '+delete', '-size', '320x240', 'tile:mpr:t']),
  checks: (a: string, b: string, period = 40) =>
    render([
      '(',
      '-size',
      `${period}x${period}`,
      `xc:${a}`,
      `xc:${b}`,
      '+append',
      ')',
      '(',
      '-size',
      `${period}x${period}`,
      `xc:${b}`,
      `xc:${a}`,
      '+append',
      ')',
      '-append',
      '-write',
      'mpr:t',
      '+delete',
      '-size',
      '320x240',
      'tile:mpr:t',
    ]),
  dots: (a: string, b: string, period = 40) =>
    render([
      '-size',
      `${period}x${period}`,
      `xc:${b}`,
      '-fill',
      a,
      '-draw',
      `circle ${period / 2},${period / 2} ${period / 2},${period / 5}`,
      '-write',
      'mpr:t',
      '+delete',
      '-size',
      '320x240',
      'tile:mpr:t',
    ]),
  text: (a: string, b: string) => renderText('Fresh bread daily', { fill: a, background: b, size: 36 }),
};
