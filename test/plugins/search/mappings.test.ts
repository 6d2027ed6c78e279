import { describe, expect, it } from 'vitest';
import { TesseraError } from '../../../runtime/errors.js';
import {
  fieldMappingSchema,
  mergeMappings,
  mergeSettings,
  parseCreateIndex,
  parsePatchIndex,
  validateIndexName,
  type Mappings,
} from '../../../plugins/search/index/mappings.js';
import { InvalidIndexNameError, InvalidMappingError, MappingConflictError, searchErrorCodes } from '../../../plugins/search/search-errors.js';

function caught(fn: () => unknown): TesseraError {
  try {
    fn();
  } catch (error) {
    return error as TesseraError;
  }
  throw new Error('expected a throw');
}

const defaults = {
  defaultOperator: 'OR',
  enableVisualExtraction: true,
  enableKnowledgeGraph: true,
  autoEmbed: false,
  k1: 1.2,
  b: 0.75,
  dynamic: false,
  vectorQuantization: 'none',
  vectorIndex: { type: 'flat' },
  embedder: { type: 'builtin', model: 'corpus-lsa-v1' },
};

describe('field mappings', () => {
  it('fill index: true everywhere and the standard analyzer on text fields', () => {
    expect(fieldMappingSchema.parse({ type: 'text' })).toEqual({ type: 'text', analyzer: 'standard', index: true });
    expect(fieldMappingSchema.parse({ type: 'text', analyzer: 'english', index: false })).toEqual({ type: 'text', analyzer: 'english', index: false });
    expect(fieldMappingSchema.parse({ type: 'geo_point' })).toEqual({ type: 'geo_point', index: true });
  });
});

describe('parseCreateIndex', () => {
  it('applies every default to a bare name', () => {
    expect(parseCreateIndex({ name: 'books' })).toEqual({ name: 'books', mappings: {}, settings: defaults });
  });

  it('keeps dotted field paths and given settings', () => {
    const parsed = parseCreateIndex({
      name: 'books_2',
      mappings: { title: { type: 'text', analyzer: 'english' }, 'author.name': { type: 'keyword' }, id: { type: 'keyword' } },
      settings: { vectorDimensions: 384, vectorMetric: 'dot_product', minimumShouldMatch: '75%', k1: 2, b: 0, dynamic: true },
    });
    expect(parsed).toEqual({
      name: 'books_2',
      mappings: {
        title: { type: 'text', analyzer: 'english', index: true },
        'author.name': { type: 'keyword', index: true },
        id: { type: 'keyword', index: true },
      },
      settings: { ...defaults, vectorDimensions: 384, vectorMetric: 'dot_product', minimumShouldMatch: '75%', k1: 2, b: 0, dynamic: true },
    });
  });

  it('answers a bad type, an analyzer on a non-text field, an unknown analyzer and unknown keys with invalid_mapping and field paths', () => {
    const error = caught(() =>
      parseCreateIndex({
        name: 'x',
        mappings: {
          a: { type: 'string' },
          b: { type: 'keyword', analyzer: 'standard' },
          title: { type: 'text', analyzer: 'klingon' },
          c: { type: 'number', boost: 2 },
        },
      }),
    );
    expect(error).toBeInstanceOf(InvalidMappingError);
    expect([error.code, error.status]).toEqual(['invalid_mapping', 400]);
    expect((error.details as { issues: unknown[] }).issues).toEqual([
      { path: 'mappings.a.type', message: 'Invalid option: expected one of "text"|"keyword"|"number"|"boolean"|"date"|"geo_point"' },
      { path: 'mappings.b.analyzer', message: 'an analyzer applies to text fields only, not keyword' },
      { path: 'mappings.title.analyzer', message: 'unknown analyzer "klingon"; expected one of: standard, english, keyword', code: 'unknown_analyzer' },
      { path: 'mappings.c', message: 'Unrecognized key: "boost"' },
    ]);
  });

  it('rejects malformed, reserved and nested field paths, and an id that is not a keyword', () => {
    const error = caught(() =>
      parseCreateIndex({
        name: 'x',
        mappings: {
          'a..b': { type: 'keyword' },
          _vector: { type: 'number' },
          author: { type: 'keyword' },
          'author.name': { type: 'text' },
          id: { type: 'number' },
        },
      }),
    );
    expect((error.details as { issues: unknown[] }).issues).toEqual([
      { path: 'mappings.a..b', message: 'a field path is 1 to 256 characters of non-empty dot-separated names' },
      { path: 'mappings._vector', message: '"_vector" is reserved for the document\'s vector' },
      { path: 'mappings.author.name', message: '"author.name" is inside mapped field "author"; a field cannot be both a value and an object' },
      { path: 'mappings.id.type', message: 'the document id can only be mapped as keyword' },
    ]);
  });

  it('answers bad settings with validation_failed naming each setting', () => {
    const error = caught(() =>
      parseCreateIndex({
        name: 'x',
        settings: { k1: 5, b: -1, vectorDimensions: 5000, minimumShouldMatch: 'most', defaultOperator: 'and', colour: 'red' },
      }),
    );
    expect([error.code, error.status]).toEqual(['validation_failed', 400]);
    const issues = (error.details as { issues: Array<{ path: string; code?: string }> }).issues;
    expect(issues.map((i) => [i.path, i.code])).toEqual([
      ['settings.vectorDimensions', undefined],
      ['settings.defaultOperator', undefined],
      ['settings.minimumShouldMatch', 'invalid_minimum_should_match'],
      ['settings.k1', undefined],
      ['settings.b', undefined],
      ['settings', undefined],
    ]);
  });

  it('checks the index name before anything else', () => {
    const error = caught(() => parseCreateIndex({ name: 'Bad Name', mappings: { a: { type: 'nope' } } }));
    expect(error).toBeInstanceOf(InvalidIndexNameError);
    expect(error.details).toEqual({ name: 'Bad Name' });
  });
});

describe('validateIndexName', () => {
  it.each(['a', 'books', 'my-index_2', '0day', 'a'.repeat(64)])('accepts %s', (name) => {
    expect(validateIndexName(name)).toBe(name);
  });

  it.each(['', 'Books', '-x', '_x', 'a b', 'a.b', 'é', 'a'.repeat(65), 42, null])('rejects %j with invalid_index_name (400)', (name) => {
    const error = caught(() => validateIndexName(name));
    expect([error.code, error.status, error.name]).toEqual(['invalid_index_name', 400, 'InvalidIndexNameError']);
  });
});

describe('mergeMappings', () => {
  const current: Mappings = {
    title: { type: 'text', analyzer: 'english', index: true },
    price: { type: 'number', index: true },
  };

  it('adds new fields without a reindex', () => {
    expect(mergeMappings(current, { tags: { type: 'keyword' }, 'meta.at': { type: 'date' } })).toEqual({
      mappings: { ...current, tags: { type: 'keyword', index: true }, 'meta.at': { type: 'date', index: true } },
      needsReindex: false,
      added: ['tags', 'meta.at'],
      changed: [],
    });
  });

  it('treats a repeated field without analyzer or index as unchanged', () => {
    expect(mergeMappings(current, { title: { type: 'text' }, price: { type: 'number' } })).toEqual({
      mappings: current,
      needsReindex: false,
      added: [],
      changed: [],
    });
  });

  it('allows a new analyzer or index flag, and asks for a reindex', () => {
    expect(mergeMappings(current, { title: { type: 'text', analyzer: 'standard' }, price: { type: 'number', index: false } })).toEqual({
      mappings: { title: { type: 'text', analyzer: 'standard', index: true }, price: { type: 'number', index: false } },
      needsReindex: true,
      added: [],
      changed: ['title', 'price'],
    });
  });

  it('refuses a type change with mapping_conflict (409) and {field, from, to}', () => {
    const error = caught(() => mergeMappings(current, { price: { type: 'keyword' } }));
    expect(error).toBeInstanceOf(MappingConflictError);
    expect([error.code, error.status, error.details]).toEqual(['mapping_conflict', 409, { field: 'price', from: 'number', to: 'keyword' }]);
  });

  it('refuses a new field inside an existing one with invalid_mapping', () => {
    const error = caught(() => mergeMappings(current, { 'price.currency': { type: 'keyword' } }));
    expect([error.code, error.details]).toEqual([
      'invalid_mapping',
      {
        issues: [{ path: 'mappings.price.currency', message: '"price.currency" is inside mapped field "price"; a field cannot be both a value and an object' }],
      },
    ]);
  });
});

describe('parsePatchIndex and mergeSettings', () => {
  it('keeps a patch as written, with no defaults filled in', () => {
    expect(parsePatchIndex({ mappings: { title: { type: 'text' } }, settings: { k1: 1.5 } })).toEqual({
      mappings: { title: { type: 'text' } },
      settings: { k1: 1.5 },
    });
    expect(caught(() => parsePatchIndex({ name: 'x' })).code).toBe('validation_failed');
    expect(caught(() => parsePatchIndex({ mappings: { t: { type: 'text', analyzer: 'nope' } } })).code).toBe('invalid_mapping');
  });

  it('changes only the settings given and lists those that differ', () => {
    const current = parseCreateIndex({ name: 'x' }).settings;
    expect(mergeSettings(current, { k1: 1.5, b: 0.75, dynamic: true })).toEqual({
      settings: { ...defaults, k1: 1.5, dynamic: true },
      changed: ['k1', 'dynamic'],
    });
  });
});

describe('searchErrorCodes', () => {
  it('documents each code once with a status', () => {
    expect(searchErrorCodes.map((c) => [c.code, c.status])).toEqual([
      ['invalid_index_name', 400],
      ['invalid_mapping', 400],
      ['mapping_conflict', 409],
      ['validation_failed', 400],
      ['invalid_document', 400],
      ['query_too_complex', 400],
      ['search_timeout', 503],
      ['invalid_sort', 400],
      ['document_too_deep', 400],
      ['invalid_document_id', 400],
      ['invalid_vector', 400],
      ['invalid_filter', 400],
      ['invalid_projection', 400],
    ]);
  });
});
