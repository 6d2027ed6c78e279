import { afterAll, describe, expect, it } from 'vitest';
import { generatedMotifSet, photographSet, photoDir } from '../../../../bench/image/motif-set.js';
import { motifRenderers, noImageMagick } from '../../../../bench/image/imagemagick.js';
import { ImageAnalyzer } from '../../../../plugins/search/image/image-analyzer.js';
import { imageLimitsSchema } from '../../../../plugins/search/image/image-options.js';

/** The palette name each ImageMagick colour of the generated set should get. */
const paletteName: Record<string, string> = {
  red: 'red',
  blue: 'blue',
  green: 'green',
  yellow: 'yellow',
  white: 'white',
  black: 'black',
  orange: 'orange',
  purple: 'purple',
  gray: 'gray',
  pink: 'pink',
  navy: 'navy',
  teal: 'teal',
  lightgray: 'silver',
  brown: 'maroon',
  // ImageMagick's beige is #f5f5dc, nearer white than the palette's beige (#e1cda0).
  beige: 'white',
};

describe.skipIf(noImageMagick !== '')('motif classifier and colour names on rendered images and photographs', () => {
  const analyzer = new ImageAnalyzer(imageLimitsSchema.parse({ workers: 1 }));
  afterAll(() => analyzer.close());

  it('classifies every image of the generated set (solids, gradients, stripes both ways, checks, dots, text)', async () => {
    const wrong: string[] = [];
    for (const image of generatedMotifSet()) {
      const { metadata } = await analyzer.analyse(image.bytes());
      if (metadata.motifs[0] !== image.expected) wrong.push(`${image.name}: ${metadata.motifs.join(',') || 'none'}`);
    }
    expect(wrong).toEqual([]);
  }, 120_000);

  it('names solid colours from the palette, with their share', async () => {
    for (const colour of ['red', 'blue', 'green', 'yellow', 'white', 'black', 'orange', 'purple', 'gray', 'pink', 'navy', 'teal']) {
      const { metadata } = await analyzer.analyse(motifRenderers.solid(colour));
      expect(metadata.colors, colour).toEqual([paletteName[colour]]);
      expect(metadata.colorShares[0]).toMatchObject({ name: paletteName[colour], share: 1 });
    }
  });

  it('names both colours of two-colour patterns, by share', async () => {
    const pairs: Array<[string, string]> = [
      ['red', 'white'],
      ['navy', 'yellow'],
      ['green', 'pink'],
      ['orange', 'purple'],
      ['blue', 'lightgray'],
      ['brown', 'beige'],
    ];
    for (const [a, b] of pairs) {
      const stripes = (await analyzer.analyse(motifRenderers.vertical_stripes(a, b, 40))).metadata;
      expect(stripes.colors.slice().sort(), `${a}/${b}`).toEqual([paletteName[a], paletteName[b]].sort());
      expect(stripes.colorShares.map((c) => c.share)).toEqual([0.5, 0.5]);
      const dots = (await analyzer.analyse(motifRenderers.dots(a, b, 40))).metadata;
      expect(dots.colors, `${a} dots on ${b}`).toEqual([paletteName[b], paletteName[a]]);
      expect(dots.suggestedKeywords).toEqual([`${paletteName[b]} dotted`, `${paletteName[a]} dotted`]);
    }
  });

  /** The main colour of each photograph tested, as the palette names it (measured once, kept as a regression check). */
  const mainColour: Record<string, string> = {
    'Aqua.jpg': 'gray',
    'Dune.jpg': 'silver',
    'Garden.jpg': 'olive',
    'LadyBird.jpg': 'olive',
    'Storm.jpg': 'gray',
    'Wood.jpg': 'beige',
  };
  const photos = photographSet().filter((p) => p.name in mainColour);
  it.skipIf(photos.length === 0)(
    `classifies photographs as photo (${photoDir}; apt-get install mate-backgrounds)`,
    async () => {
      for (const photo of photos) {
        const { metadata } = await analyzer.analyse(photo.bytes());
        expect(metadata.motifs, photo.name).toEqual(['photo']);
        expect(metadata.colors[0], photo.name).toBe(mainColour[photo.name]);
      }
    },
    120_000,
  );
});
