import { describe, expect, it } from 'vitest';
import { getAnalyzer } from '../../../plugins/search/analysis/analyzer.js';
import { members, type Bitset } from '../../../plugins/search/index/bitset.js';
import { Deadline } from '../../../plugins/search/search/deadline.js';
import { matchSet } from '../../../plugins/search/search/match-set.js';
import { parseQuery } from '../../../plugins/search/query/query-parser.js';
import { buildSegment, type IndexableDocument } from '../../../plugins/search/index/segment.js';

const analyzer = getAnalyzer('standard');
const titles = ['alpha beta gamma', 'beta alpha', 'alpha beta', 'gamma delta', 'alpha gamma beta', 'delta alpha beta'];
const docs: IndexableDocument[] = titles.map((title, i) => ({ id: `d${i}`, fields: { title: { type: 'text', values: [title] } } }));
const seg = buildSegment(docs, { title: analyzer });
const scope = { fields: ['title'] };
const ids = (set: Bitset): string[] => [...members(set)].map((ord) => seg.ids[ord]!);
const parse = (q: string) => parseQuery(q, { analyzer, fields: { title: analyzer } });

describe('matchSet with repeated clauses', () => {
  it('verifies a phrase repeated 60 times once per segment, with the answer of the single phrase', () => {
    const memo = new Map<string, Bitset>();
    const repeated = matchSet(parse(Array(60).fill('"alpha beta"').join(' ')), seg, scope, memo);
    expect(memo.size).toBe(1);
    expect(ids(repeated)).toEqual(ids(matchSet(parse('"alpha beta"'), seg, scope)));
    expect(ids(repeated)).toEqual(['d0', 'd2', 'd5']);
  });

  it('gives each use of a shared leaf its own set: must, should and mustNot of one term stay exact', () => {
    const memo = new Map<string, Bitset>();
    // +alpha (alpha OR delta) -"gamma delta" -alpha... the same leaves in several roles.
    const both = matchSet(parse('+alpha +(alpha delta) -"gamma delta"'), seg, scope, memo);
    expect(ids(both)).toEqual(['d0', 'd1', 'd2', 'd4', 'd5']);
    const none = matchSet(parse('+alpha -alpha'), seg, scope, memo);
    expect(ids(none)).toEqual([]);
    // The memo's sets were not changed by the in-place steps above.
    expect(ids(matchSet(parse('alpha'), seg, scope, memo))).toEqual(['d0', 'd1', 'd2', 'd4', 'd5']);
  });

  it('stops at the search time budget between leaves', () => {
    const spent = new Deadline(-1);
    expect(() => matchSet(parse('"alpha beta" "gamma delta"'), seg, scope, new Map(), spent)).toThrowError(expect.objectContaining({ code: 'search_timeout' }));
  });
});
