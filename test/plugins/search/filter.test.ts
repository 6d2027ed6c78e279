import { describe, expect, it } from 'vitest';
import { members } from '../../../plugins/search/index/bitset.js';
import { prepareDocument, type PreparedFields } from '../../../plugins/search/index/document-validation.js';
import { evaluateFilter, matchesFilter, parseFilter, type FilterColumns } from '../../../plugins/search/query/filter.js';
import type { Mappings } from '../../../plugins/search/index/mappings.js';
import type { TesseraError } from '../../../runtime/errors.js';

const mappings: Mappings = {
  title: { type: 'text', analyzer: 'standard', index: true },
  tag: { type: 'keyword', index: true },
  price: { type: 'number', index: true },
  sizes: { type: 'number', index: true },
  active: { type: 'boolean', index: true },
  at: { type: 'date', index: true },
  where: { type: 'geo_point', index: true },
  hidden: { type: 'keyword', index: false },
};

const raws = [
  { id: 'a', tag: ['red', 'blue'], price: 10, sizes: [1, 10], active: true, at: '2024-01-01' },
  { id: 'b', tag: 'red', price: 20, sizes: 5, active: false, at: '2024-06-01T12:00:00Z' },
  { id: 'c', tag: 'green', price: 30, active: [true, false] },
  { id: 'd', title: 'nothing filterable' },
  { id: 'e', tag: 7, price: 0, sizes: [4, 6], active: false, at: 1735689600000 },
];
const docs = raws.map((raw) => {
  const prepared = prepareDocument(raw, mappings, { dynamic: false });
  if (!prepared.ok) throw new Error(prepared.message);
  return { id: prepared.id!, fields: prepared.fields };
});

/** Columns laid out as the engine's segments lay them out: min/max for multi-valued numbers. */
function columnsOf(list: Array<{ id: string; fields: PreparedFields }>): FilterColumns {
  const values = (field: string) => list.map((d) => d.fields[field]?.values ?? []);
  return {
    keyword: (field) =>
      mappings[field]?.type === 'keyword'
        ? { postings: (v) => Uint32Array.from(values(field).flatMap((vs, ord) => (vs.includes(v) ? [ord] : []))) }
        : undefined,
    numeric(field) {
      if (field === 'price') return Float64Array.from(values(field).map((vs) => (vs.length ? (vs[0] as number) : NaN)));
      const nums = values(field) as number[][];
      return {
        min: Float64Array.from(nums.map((vs) => (vs.length ? Math.min(...vs) : NaN))),
        max: Float64Array.from(nums.map((vs) => (vs.length ? Math.max(...vs) : NaN))),
      };
    },
    boolean: (field) => Uint8Array.from(values(field).map((vs) => (vs.length === 0 ? 2 : vs.length > 1 && new Set(vs).size === 2 ? 3 : vs[0] ? 1 : 0))),
    ids: () => list.map((d) => d.id),
    exists(field) {
      const set = new Uint32Array(Math.ceil(list.length / 32));
      values(field).forEach((vs, ord) => {
        if (vs.length) set[ord >>> 5]! |= 1 << (ord & 31);
      });
      return set;
    },
  };
}

const columns = columnsOf(docs);
/** Ids passing `raw`, by the bitset evaluator and by the per-document one (which must agree unless told). */
function run(raw: unknown, exactOnly = false): string[] {
  const node = parseFilter(raw, mappings);
  const bitset = [...members(evaluateFilter(node, columns, docs.length))].map((ord) => docs[ord]!.id);
  const single = docs.filter((d) => matchesFilter(node, d)).map((d) => d.id);
  if (!exactOnly) expect(bitset).toEqual(single);
  return exactOnly ? single : bitset;
}

function caught(fn: () => unknown): TesseraError {
  try {
    fn();
  } catch (error) {
    return error as TesseraError;
  }
  throw new Error('expected a throw');
}

describe('parseFilter', () => {
  it('normalises values: keywords and ids to strings, dates to epoch ms', () => {
    expect(
      parseFilter(
        {
          and: [
            { eq: { tag: 7 } },
            { in: { id: [1, 'x'] } },
            { range: { at: { gte: '2024-01-01', lt: 1735689600000 } } },
            { not: { exists: 'price' } },
            { or: [{ exists: { field: 'active' } }, { eq: { active: false } }] },
          ],
        },
        mappings,
      ),
    ).toEqual({
      op: 'and',
      filters: [
        { op: 'eq', field: 'tag', type: 'keyword', value: '7' },
        { op: 'in', field: 'id', type: 'id', values: ['1', 'x'] },
        { op: 'range', field: 'at', type: 'date', gte: Date.UTC(2024, 0, 1), lt: 1735689600000 },
        { op: 'not', filter: { op: 'exists', field: 'price', type: 'number' } },
        {
          op: 'or',
          filters: [
            { op: 'exists', field: 'active', type: 'boolean' },
            { op: 'eq', field: 'active', type: 'boolean', value: false },
          ],
        },
      ],
    });
  });

  it.each([
    [{ and: [{ eq: { tag: 'x' } }, { range: { price: { gte: 'cheap' } } }] }, 'filter.and[1].range.price.gte', 'expected a finite number, got "cheap"'],
    [{ eq: { title: 'x' } }, 'filter.eq.title', 'field "title" is text; filters apply to keyword, number, boolean and date fields'],
    [{ eq: { where: '1,2' } }, 'filter.eq.where', 'field "where" is geo_point; filters apply to keyword, number, boolean and date fields'],
    [{ eq: { nope: 1 } }, 'filter.eq.nope', 'unknown field "nope"'],
    [{ eq: { hidden: 'x' } }, 'filter.eq.hidden', 'field "hidden" is not indexed (index: false)'],
    [{ eq: { tag: 'x', price: 1 } }, 'filter.eq', 'expected exactly one field, got 2 (combine several with "and")'],
    [{ eq: { tag: null } }, 'filter.eq.tag', 'expected a string, number or boolean, got null'],
    [{ eq: { active: 'true' } }, 'filter.eq.active', 'expected a boolean, got "true"'],
    [{ in: { tag: 'red' } }, 'filter.in.tag', 'expected an array of values'],
    [{ in: { id: [true] } }, 'filter.in.id[0]', 'expected a string or number, got true'],
    [{ range: { tag: { gt: 'a' } } }, 'filter.range.tag', 'range applies to number and date fields; "tag" is keyword'],
    [{ range: { price: {} } }, 'filter.range.price', 'expected at least one of gt, gte, lt, lte'],
    [{ range: { price: { gt: 1, gte: 2 } } }, 'filter.range.price', 'gt and gte cannot both be given'],
    [{ range: { price: { from: 1 } } }, 'filter.range.price.from', 'unknown bound; expected gt, gte, lt or lte'],
    [{ range: { at: { lt: 'yesterday' } } }, 'filter.range.at.lt', 'expected an ISO 8601 date or epoch milliseconds, got "yesterday"'],
    [{ exists: 5 }, 'filter.exists', 'expected a field name or {"field": name}'],
    [{ or: [] }, 'filter.or', 'expected a non-empty array of filters'],
    [{ not: { nand: [] } }, 'filter.not.nand', 'unknown operator; expected eq, in, range, exists, and, or or not'],
    [{ eq: { tag: 'x' }, in: { tag: [] } }, 'filter', 'expected exactly one operator (eq, in, range, exists, and, or, not), got 2'],
    [[], 'filter', 'expected an object such as {"eq": {"field": value}}'],
  ])('rejects %j at %s', (raw, path, message) => {
    const error = caught(() => parseFilter(raw, mappings));
    expect([error.code, error.status, error.details, error.message]).toEqual(['invalid_filter', 400, { path }, `${path}: ${message}`]);
  });

  it('bounds nesting depth', () => {
    let raw: unknown = { eq: { tag: 'x' } };
    for (let i = 0; i < 40; i++) raw = { not: raw };
    expect(caught(() => parseFilter(raw, mappings)).message).toMatch(/^filter(\.not){33}: filters nest at most 32 deep$/);
  });
});

describe('evaluateFilter and matchesFilter', () => {
  it('eq matches any value of a multi-valued keyword, and numbers stringified', () => {
    expect([run({ eq: { tag: 'red' } }), run({ eq: { tag: 'blue' } }), run({ eq: { tag: 7 } }), run({ eq: { tag: 'pink' } })]).toEqual([
      ['a', 'b'],
      ['a'],
      ['e'],
      [],
    ]);
  });

  it('eq and in on id', () => {
    expect([run({ eq: { id: 'c' } }), run({ in: { id: ['e', 'a', 'zz'] } })]).toEqual([['c'], ['a', 'e']]);
  });

  it('in is a union, and an empty in matches nothing', () => {
    expect([run({ in: { tag: ['green', 'blue'] } }), run({ in: { price: [20, 0] } }), run({ in: { tag: [] } })]).toEqual([['a', 'c'], ['b', 'e'], []]);
  });

  it('booleans, including a document holding both values', () => {
    expect([run({ eq: { active: true } }), run({ eq: { active: false } }), run({ in: { active: [true, false] } })]).toEqual([
      ['a', 'c'],
      ['b', 'c', 'e'],
      ['a', 'b', 'c', 'e'],
    ]);
  });

  it('range bounds are inclusive or exclusive as named, and missing values never match', () => {
    expect([
      run({ range: { price: { gte: 10, lte: 20 } } }),
      run({ range: { price: { gt: 10, lt: 30 } } }),
      run({ range: { price: { lt: 10 } } }),
      run({ range: { price: { gte: -1 } } }),
    ]).toEqual([['a', 'b'], ['b'], ['e'], ['a', 'b', 'c', 'e']]);
  });

  it('range on dates takes ISO strings and epoch ms', () => {
    expect([
      run({ range: { at: { gte: '2024-06-01' } } }),
      run({ range: { at: { lt: '2024-06-01T12:00:00Z' } } }),
      run({ range: { at: { gt: '2024-01-01', lte: 1735689600000 } } }),
      run({ eq: { at: '2024-01-01T00:00:00Z' } }),
    ]).toEqual([['b', 'e'], ['a'], ['b', 'e'], ['a']]);
  });

  it('multi-valued numbers: one-sided ranges are exact, a two-sided range between the values matches by min/max only', () => {
    expect([run({ range: { sizes: { gte: 6 } } }), run({ range: { sizes: { lt: 4 } } }), run({ eq: { sizes: 10 } })]).toEqual([['a', 'e'], ['a'], ['a']]);
    // a has sizes 1 and 10, e has 4 and 6: neither has a value in 2..3, but a's [1, 10] overlaps it.
    expect(run({ range: { sizes: { gte: 2, lte: 3 } } }, true)).toEqual([]);
    expect([...members(evaluateFilter(parseFilter({ range: { sizes: { gte: 2, lte: 3 } } }, mappings), columns, docs.length))]).toEqual([0]);
  });

  it('exists, in both spellings; on id it is every document', () => {
    expect([run({ exists: 'tag' }), run({ exists: { field: 'sizes' } }), run({ exists: 'at' }), run({ exists: 'id' })]).toEqual([
      ['a', 'b', 'c', 'e'],
      ['a', 'b', 'e'],
      ['a', 'b', 'e'],
      ['a', 'b', 'c', 'd', 'e'],
    ]);
  });

  it('not complements, keeping documents without the field', () => {
    expect([run({ not: { eq: { tag: 'red' } } }), run({ not: { exists: 'price' } }), run({ not: { not: { eq: { active: true } } } })]).toEqual([
      ['c', 'd', 'e'],
      ['d'],
      ['a', 'c'],
    ]);
  });

  it('and / or nest', () => {
    expect(
      run({
        or: [
          { and: [{ eq: { tag: 'red' } }, { range: { price: { gt: 15 } } }] },
          { and: [{ not: { exists: 'tag' } }, { not: { exists: 'price' } }] },
          { eq: { id: 'e' } },
        ],
      }),
    ).toEqual(['b', 'd', 'e']);
  });

  it('treats a field the segment has no column for as having no values', () => {
    const bare: FilterColumns = {
      keyword: () => undefined,
      numeric: () => undefined,
      boolean: () => undefined,
      ids: () => ['x', 'y'],
      exists: () => undefined,
    };
    const ids = (raw: unknown) => [...members(evaluateFilter(parseFilter(raw, mappings), bare, 2))];
    expect([
      ids({ eq: { tag: 'a' } }),
      ids({ range: { price: { gt: 0 } } }),
      ids({ eq: { active: false } }),
      ids({ exists: 'tag' }),
      ids({ not: { exists: 'tag' } }),
    ]).toEqual([[], [], [], [], [0, 1]]);
  });

  it('sets no bits past docCount, across word boundaries', () => {
    const many: FilterColumns = { keyword: () => undefined, numeric: () => undefined, boolean: () => undefined, ids: () => [], exists: () => undefined };
    const set = evaluateFilter(parseFilter({ not: { exists: 'tag' } }, mappings), many, 33);
    expect(Array.from(set)).toEqual([0xffffffff, 1]);
  });
});
