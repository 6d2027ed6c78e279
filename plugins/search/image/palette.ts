/**
 * The colour names images are tagged with: 20 names, each with the sRGB value that stands for it.
 * A pixel colour takes the name of the nearest entry in CIELAB (CIE76 distance), which follows
 * how different colours look far better than RGB distance does (dark blue and black are close in
 * RGB, far apart to the eye).
 */
export const palette: ReadonlyArray<{ name: string; rgb: readonly [number, number, number] }> = [
  { name: 'black', rgb: [0, 0, 0] },
  { name: 'gray', rgb: [128, 128, 128] },
  { name: 'silver', rgb: [192, 192, 192] },
  { name: 'white', rgb: [255, 255, 255] },
  { name: 'red', rgb: [220, 20, 20] },
  { name: 'maroon', rgb: [128, 0, 0] },
  { name: 'orange', rgb: [255, 140, 0] },
  { name: 'brown', rgb: [139, 90, 43] },
  { name: 'beige', rgb: [225, 205, 160] },
  { name: 'yellow', rgb: [255, 230, 0] },
  { name: 'olive', rgb: [128, 128, 0] },
  { name: 'lime', rgb: [50, 220, 50] },
  { name: 'green', rgb: [0, 128, 0] },
  { name: 'teal', rgb: [0, 128, 128] },
  { name: 'cyan', rgb: [0, 230, 230] },
  { name: 'blue', rgb: [30, 80, 220] },
  { name: 'navy', rgb: [0, 0, 128] },
  { name: 'purple', rgb: [128, 0, 128] },
  { name: 'magenta', rgb: [235, 0, 235] },
  { name: 'pink', rgb: [255, 170, 200] },
];

/** sRGB (0-255) to CIELAB (D65). */
export function rgbToLab(r: number, g: number, b: number): [number, number, number] {
  const lin = (c: number): number => {
    const v = c / 255;
    return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  const R = lin(r);
  const G = lin(g);
  const B = lin(b);
  const x = (R * 0.4124 + G * 0.3576 + B * 0.1805) / 0.95047;
  const y = R * 0.2126 + G * 0.7152 + B * 0.0722;
  const z = (R * 0.0193 + G * 0.1192 + B * 0.9505) / 1.08883;
  const f = (t: number): number => (t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116);
  return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
}

const paletteLab = palette.map((p) => rgbToLab(...p.rgb));

/** Index into `palette` of the colour nearest to an sRGB value. */
export function nearestPaletteIndex(r: number, g: number, b: number): number {
  const [l, a, bb] = rgbToLab(r, g, b);
  let best = 0;
  let bestDistance = Infinity;
  for (let i = 0; i < paletteLab.length; i++) {
    const p = paletteLab[i]!;
    const d = (p[0] - l) ** 2 + (p[1] - a) ** 2 + (p[2] - bb) ** 2;
    if (d < bestDistance) {
      bestDistance = d;
      best = i;
    }
  }
  return best;
}
