import { describe, expect, it } from 'vitest';
import { applyProjection, compileProjection, projectSource } from '../../../plugins/search/search/projection.js';
import type { TesseraError } from '../../../runtime/errors.js';

const source = {
  id: 'b1',
  title: 'Dune',
  author: { name: 'Herbert', born: 1920, address: { city: 'Tacoma', zip: '98401' } },
  chapters: [{ n: 1, title: 'One', pages: 20 }, { n: 2, title: 'Two' }, 'appendix', [{ n: 3, title: 'Three' }]],
  tags: ['sf', 'classic'],
  _vector: [0.1, 0.2],
};
const frozen = JSON.stringify(source);

function caught(fn: () => unknown): TesseraError {
  try {
    fn();
  } catch (error) {
    return error as TesseraError;
  }
  throw new Error('expected a throw');
}

describe('applyProjection', () => {
  it('returns the whole source without _vector when nothing is asked', () => {
    const { _vector, ...rest } = source;
    expect(applyProjection(source)).toEqual(rest);
    expect(applyProjection(source, {})).toEqual(rest);
  });

  it('includes only the 1 paths, nested, with id unless id: 0', () => {
    expect(applyProjection(source, { title: 1, 'author.address.city': 1, 'author.missing': 1, nope: 1 })).toEqual({
      id: 'b1',
      title: 'Dune',
      author: { address: { city: 'Tacoma' } },
    });
    expect(applyProjection(source, { title: 1, id: 0 })).toEqual({ title: 'Dune' });
    expect(applyProjection(source, { id: 1 })).toEqual({ id: 'b1' });
  });

  it('excludes the 0 paths, nested, and id only when asked', () => {
    expect(applyProjection(source, { 'author.address': 0, chapters: 0, tags: 0 })).toEqual({
      id: 'b1',
      title: 'Dune',
      author: { name: 'Herbert', born: 1920 },
    });
    expect(applyProjection(source, { id: 0, author: 0, chapters: 0, tags: 0 })).toEqual({ title: 'Dune' });
    expect(applyProjection(source, { title: 0, author: 0, chapters: 0, id: 1 })).toEqual({ id: 'b1', tags: ['sf', 'classic'] });
  });

  it('applies a path to each object of an array, like MongoDB', () => {
    expect(applyProjection(source, { 'chapters.title': 1, id: 0 })).toEqual({
      chapters: [{ title: 'One' }, { title: 'Two' }, [{ title: 'Three' }]],
    });
    expect(applyProjection(source, { 'chapters.title': 0, 'chapters.n': 0, author: 0, title: 0, tags: 0, id: 0 })).toEqual({
      chapters: [{ pages: 20 }, {}, 'appendix', [{}]],
    });
    expect(applyProjection(source, { 'tags.x': 1, 'title.x': 1, id: 0 })).toEqual({ tags: [] });
  });

  it('keeps _vector out unless it is included explicitly', () => {
    expect(applyProjection(source, { _vector: 1, id: 0 })).toEqual({ _vector: [0.1, 0.2] });
    expect(applyProjection(source, undefined, ['_vector'])).toEqual({ id: 'b1', _vector: [0.1, 0.2] });
    expect(applyProjection(source, { title: 0, author: 0, chapters: 0, tags: 0, id: 0 })).toEqual({});
  });

  it('takes select as a projection of 1s; an empty select leaves the id', () => {
    expect(applyProjection(source, undefined, ['title', 'author.name'])).toEqual({ id: 'b1', title: 'Dune', author: { name: 'Herbert' } });
    expect(applyProjection(source, undefined, [])).toEqual({ id: 'b1' });
  });

  it('lets a parent path cover its children in either order', () => {
    expect(applyProjection(source, { 'author.name': 1, author: 1, id: 0 })).toEqual({ author: source.author });
    expect(applyProjection(source, { author: 1, 'author.name': 1, id: 0 })).toEqual({ author: source.author });
  });

  it('accepts true and false for 1 and 0', () => {
    expect(applyProjection(source, { title: true, id: false } as never)).toEqual({ title: 'Dune' });
  });

  it('never mutates the source', () => {
    applyProjection(source, { 'chapters.title': 0, 'author.address.zip': 0 });
    applyProjection(source, { 'chapters.title': 1 });
    expect(JSON.stringify(source)).toBe(frozen);
  });

  it.each([
    [{ title: 1, author: 0 }, undefined, 'projection cannot mix 1 (include) and 0 (exclude); only id may differ'],
    [{ title: 2 }, undefined, 'projection.title must be 1 (include) or 0 (exclude), got 2'],
    [{ 'a..b': 1 }, undefined, 'projection.a..b: "a..b" is not a field path (non-empty names joined by dots)'],
    [['title'], undefined, 'projection must be an object of field path -> 0 or 1'],
    [{ title: 1 }, ['title'], 'Give either projection or select, not both'],
    [undefined, 'title', 'select must be an array of field paths'],
    [undefined, ['title', 3], 'select[1] must be a field path string'],
    [undefined, [''], 'select[0]: "" is not a field path (non-empty names joined by dots)'],
  ])('rejects projection %j with select %j', (projection, select, message) => {
    const error = caught(() => compileProjection(projection, select));
    expect([error.code, error.status, error.message]).toEqual(['invalid_projection', 400, message]);
  });
});

describe('compileProjection', () => {
  it('compiles once for many sources', () => {
    const compiled = compileProjection({ title: 1 });
    expect([projectSource({ id: '1', title: 'a', x: 1 }, compiled), projectSource({ id: '2', x: 2 }, compiled)]).toEqual([
      { id: '1', title: 'a' },
      { id: '2' },
    ]);
  });
});
