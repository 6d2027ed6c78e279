import { describe, expect, it } from 'vitest';
import { inferFieldMapping, parseDate, parseGeoPoint, prepareDocument, valuesAtPath } from '../../../plugins/search/index/document-validation.js';
import type { Mappings } from '../../../plugins/search/index/mappings.js';

const mappings: Mappings = {
  title: { type: 'text', analyzer: 'standard', index: true },
  tags: { type: 'keyword', index: true },
  price: { type: 'number', index: true },
  inStock: { type: 'boolean', index: true },
  published: { type: 'date', index: true },
  location: { type: 'geo_point', index: true },
  'author.name': { type: 'keyword', index: true },
  notes: { type: 'text', analyzer: 'standard', index: false },
};
const strict = { dynamic: false };

describe('prepareDocument', () => {
  it('extracts and normalises every mapped type, keeping the source as given', () => {
    const raw = {
      id: 7,
      title: 'Dune',
      tags: ['sf', 42, true],
      price: 9.5,
      inStock: false,
      published: '2024-05-01T10:00:00+02:00',
      location: '48.85,2.35',
      author: { name: 'Herbert' },
      notes: 'not indexed',
      extra: { deep: 1 },
    };
    expect(prepareDocument(raw, mappings, strict)).toEqual({
      ok: true,
      id: '7',
      source: { ...raw, id: '7' },
      fields: {
        title: { type: 'text', values: ['Dune'] },
        tags: { type: 'keyword', values: ['sf', '42', 'true'] },
        price: { type: 'number', values: [9.5] },
        inStock: { type: 'boolean', values: [false] },
        published: { type: 'date', values: [Date.UTC(2024, 4, 1, 8)] },
        location: { type: 'geo_point', values: [{ lat: 48.85, lon: 2.35 }] },
        'author.name': { type: 'keyword', values: ['Herbert'] },
      },
    });
    expect(raw.id).toBe(7);
  });

  it('reads dotted paths through arrays of objects and literal dotted keys, flattening values and skipping nulls', () => {
    const raw = { author: [{ name: 'A' }, { name: ['B', null] }, { other: 1 }, 'loose'], 'author.name': 'C', price: [1, [2, 3]], title: null };
    const prepared = prepareDocument(raw, mappings, strict);
    expect(prepared.ok && prepared.fields).toEqual({
      'author.name': { type: 'keyword', values: ['A', 'B', 'C'] },
      price: { type: 'number', values: [1, 2, 3] },
    });
    expect(prepared.ok && prepared.id).toBeUndefined();
  });

  it.each([
    [{ title: 5 }, 'title', 'Field "title" (text) expects a string, got number 5'],
    [{ tags: [{ a: 1 }] }, 'tags', 'Field "tags" (keyword) expects a string, number or boolean, got object {"a":1}'],
    [{ price: '12' }, 'price', 'Field "price" (number) expects a finite number, got string "12"'],
    [{ inStock: 'yes' }, 'inStock', 'Field "inStock" (boolean) expects a boolean, got string "yes"'],
    [{ published: '2024-02-30' }, 'published', 'Field "published" (date) expects an ISO 8601 date string or epoch milliseconds, got string "2024-02-30"'],
    [
      { location: { lat: 91, lon: 0 } },
      'location',
      'Field "location" (geo_point) expects a geo point ({lat, lon}, "lat,lon" or [lon, lat]) with lat in [-90, 90] and lon in [-180, 180], got object {"lat":91,"lon":0}',
    ],
    [{ author: { name: { first: 'F' } } }, 'author.name', 'Field "author.name" (keyword) expects a string, number or boolean, got object {"first":"F"}'],
    [{ notes: 1 }, 'notes', 'Field "notes" (text) expects a string, got number 1'],
  ])('rejects %j with validation_failed naming the field path', (raw, path, message) => {
    expect(prepareDocument(raw, mappings, strict)).toEqual({ ok: false, code: 'validation_failed', message, path });
  });

  it.each([
    [[1, 2], 'A document must be a JSON object, got array [1,2]', 'invalid_document', undefined],
    ['doc', 'A document must be a JSON object, got string "doc"', 'invalid_document', undefined],
    [{ id: true }, 'id must be a string or a finite number, got boolean true', 'invalid_document_id', 'id'],
    [{ id: null }, 'id must be a string or a finite number, got null', 'invalid_document_id', 'id'],
    [{ id: '' }, 'id must not be empty', 'invalid_document_id', 'id'],
    [{ id: 'é'.repeat(257) }, 'id is longer than 512 bytes in UTF-8', 'invalid_document_id', 'id'],
  ])('rejects %j with its code', (raw, message, code, path) => {
    expect(prepareDocument(raw, mappings, strict)).toEqual(path === undefined ? { ok: false, code, message } : { ok: false, code, message, path });
  });

  it('accepts an id of exactly 512 bytes', () => {
    const id = 'é'.repeat(256);
    expect(prepareDocument({ id }, {}, strict)).toEqual({ ok: true, id, source: { id }, fields: {} });
  });

  it('checks _vector against vectorDimensions', () => {
    expect(prepareDocument({ _vector: [1, 0.5] }, {}, { dynamic: false, vectorDimensions: 2 })).toEqual({
      ok: true,
      id: undefined,
      source: { _vector: [1, 0.5] },
      fields: {},
      vector: [1, 0.5],
    });
    expect(prepareDocument({ _vector: [1, 2, 3] }, {}, { dynamic: false, vectorDimensions: 2 })).toEqual({
      ok: false,
      code: 'invalid_vector',
      path: '_vector',
      message: '_vector must be an array of 2 finite numbers, got array [1,2,3]',
    });
    expect(prepareDocument({ _vector: [1, 'a'] }, {}, { dynamic: false, vectorDimensions: 2 })).toMatchObject({ ok: false, code: 'invalid_vector' });
    expect(prepareDocument({ _vector: [1, 2] }, {}, strict)).toEqual({
      ok: false,
      code: 'invalid_vector',
      path: '_vector',
      message: '_vector was given but the index has no vectorDimensions setting',
    });
  });

  it('stores unmapped fields without indexing them when dynamic is off', () => {
    expect(prepareDocument({ id: 'a', colour: 'red' }, {}, strict)).toEqual({ ok: true, id: 'a', source: { id: 'a', colour: 'red' }, fields: {} });
  });

  it('infers mappings for new leaf paths when dynamic is on, then validates with them', () => {
    const raw = {
      id: 'x',
      _vector: null,
      title: 'Mapped',
      summary: 'Free text',
      at: '2024-01-02',
      count: 3,
      ok: true,
      nothing: null,
      empty: [],
      meta: { lang: 'en', scores: [1, 2] },
      authors: [{ name: 'A' }, { name: 'B', age: 40 }],
      author: { name: 'skipped: mapped' },
    };
    expect(prepareDocument(raw, { title: mappings.title!, 'author.name': mappings['author.name']! }, { dynamic: true })).toEqual({
      ok: true,
      id: 'x',
      source: raw,
      fields: {
        title: { type: 'text', values: ['Mapped'] },
        'author.name': { type: 'keyword', values: ['skipped: mapped'] },
        summary: { type: 'text', values: ['Free text'] },
        at: { type: 'date', values: [Date.UTC(2024, 0, 2)] },
        count: { type: 'number', values: [3] },
        ok: { type: 'boolean', values: [true] },
        'meta.lang': { type: 'text', values: ['en'] },
        'meta.scores': { type: 'number', values: [1, 2] },
        'authors.name': { type: 'text', values: ['A', 'B'] },
        'authors.age': { type: 'number', values: [40] },
      },
      inferred: {
        summary: { type: 'text', analyzer: 'standard', index: true },
        at: { type: 'date', index: true },
        count: { type: 'number', index: true },
        ok: { type: 'boolean', index: true },
        'meta.lang': { type: 'text', analyzer: 'standard', index: true },
        'meta.scores': { type: 'number', index: true },
        'authors.name': { type: 'text', analyzer: 'standard', index: true },
        'authors.age': { type: 'number', index: true },
      },
    });
  });

  it('fails a dynamic document whose array mixes types after the first value decided the mapping', () => {
    expect(prepareDocument({ n: [1, 'two'] }, {}, { dynamic: true })).toEqual({
      ok: false,
      code: 'validation_failed',
      path: 'n',
      message: 'Field "n" (number) expects a finite number, got string "two"',
    });
  });
});

describe('value parsers', () => {
  it('parse ISO 8601 dates as UTC unless an offset is given, and epoch ms as is', () => {
    expect([
      parseDate('2024-05-01'),
      parseDate('2024-05-01T10:20'),
      parseDate('2024-05-01 10:20:30.5Z'),
      parseDate('2024-05-01T10:20:30.123456-0130'),
      parseDate(0),
      parseDate(1714560000000),
    ]).toEqual([
      Date.UTC(2024, 4, 1),
      Date.UTC(2024, 4, 1, 10, 20),
      Date.UTC(2024, 4, 1, 10, 20, 30, 500),
      Date.UTC(2024, 4, 1, 11, 50, 30, 123),
      0,
      1714560000000,
    ]);
    expect(parseDate('0099-01-01')).toBe(new Date('0099-01-01T00:00:00Z').getTime());
    expect(['2024-13-01', '2024-02-30', '2024-05-01T24:00', '2024-05-01T10:60', '01/05/2024', '2024-5-1', '', Infinity, 9e15, true].map(parseDate)).toEqual(
      Array(10).fill(undefined),
    );
  });

  it('parse geo points in all three forms, GeoJSON order for arrays', () => {
    expect([
      parseGeoPoint({ lat: 1, lon: 2 }),
      parseGeoPoint(' -33.9 , 151.2 '),
      parseGeoPoint([2, 1]),
      parseGeoPoint({ type: 'Point', coordinates: [2, 1] }),
    ]).toEqual([
      { lat: 1, lon: 2 },
      { lat: -33.9, lon: 151.2 },
      { lat: 1, lon: 2 },
      { lat: 1, lon: 2 },
    ]);
    expect([parseGeoPoint([0, 91]), parseGeoPoint([181, 0]), parseGeoPoint('1,2,3'), parseGeoPoint({ lat: '1', lon: 2 }), parseGeoPoint([1])]).toEqual(
      Array(5).fill(undefined),
    );
  });

  it('treat an array of pairs as several geo points', () => {
    const prepared = prepareDocument({ location: [[2, 1], { lat: 3, lon: 4 }] }, { location: { type: 'geo_point', index: true } }, strict);
    expect(prepared.ok && prepared.fields).toEqual({
      location: {
        type: 'geo_point',
        values: [
          { lat: 1, lon: 2 },
          { lat: 3, lon: 4 },
        ],
      },
    });
  });

  it('infer date only for valid ISO strings', () => {
    expect([inferFieldMapping('2024-01-01'), inferFieldMapping('2024-99-01'), inferFieldMapping(1), inferFieldMapping(null), inferFieldMapping({})]).toEqual([
      { type: 'date', index: true },
      { type: 'text', analyzer: 'standard', index: true },
      { type: 'number', index: true },
      undefined,
      undefined,
    ]);
  });

  it('valuesAtPath keeps one entry per place the path reaches', () => {
    expect(valuesAtPath({ a: [{ b: 1 }, { b: [2, 3] }, 4] }, 'a.b')).toEqual([1, [2, 3]]);
    expect(valuesAtPath({ a: { 'b.c': 1, b: { c: 2 } } }, 'a.b.c')).toEqual([2, 1]);
  });
});
