import { type ErrorCodeDoc, ConflictError, InputError, type FieldIssue } from 'tessera-runtime/plugin';

/**
 * Errors of index definitions, documents, filters and projections. Per-document problems met while
 * ingesting are not thrown: `prepareDocument` returns them as `{ok: false, code, message, path}` so
 * one bad document never sinks a batch; their codes are listed here so docs/errors.md has them.
 */

export class InvalidIndexNameError extends InputError {
  constructor(name: unknown) {
    super(
      'invalid_index_name',
      `Index name ${JSON.stringify(name) ?? String(name)} is invalid: use 1 to 64 lowercase letters, digits, "-" and "_", not starting with "-" or "_"`,
      { details: { name } },
    );
    this.name = 'InvalidIndexNameError';
  }
}

export class InvalidMappingError extends InputError {
  constructor(issues: FieldIssue[]) {
    super('invalid_mapping', `Invalid mapping: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, { details: { issues } });
    this.name = 'InvalidMappingError';
  }
}

export class MappingConflictError extends ConflictError {
  constructor(field: string, from: string, to: string) {
    super('mapping_conflict', `Field "${field}" is mapped as ${from}; it cannot become ${to} (create a new index and reindex instead)`, {
      details: { field, from, to },
    });
    this.name = 'MappingConflictError';
  }
}

export class InvalidFilterError extends InputError {
  constructor(path: string, message: string) {
    super('invalid_filter', `${path}: ${message}`, { details: { path } });
    this.name = 'InvalidFilterError';
  }
}

export class InvalidProjectionError extends InputError {
  constructor(message: string, path?: string) {
    super('invalid_projection', message, path === undefined ? undefined : { details: { path } });
    this.name = 'InvalidProjectionError';
  }
}

export const searchErrorCodes: ErrorCodeDoc[] = [
  {
    code: 'invalid_index_name',
    status: 400,
    when: 'An index name is not 1 to 64 lowercase letters, digits, `-` and `_` starting with a letter or digit; `details.name` repeats it.',
  },
  {
    code: 'invalid_mapping',
    status: 400,
    when: 'A field mapping has an unknown type, an `analyzer` on a non-text field, an unknown analyzer, an unknown key, a malformed or reserved field path, or two paths where one is inside the other (`a` and `a.b`); `details.issues` gives each path, such as `mappings.title.analyzer`.',
  },
  {
    code: 'mapping_conflict',
    status: 409,
    when: "A mapping change would change an existing field's type; `details` is `{field, from, to}`. Adding fields, or changing a field's analyzer or `index` flag (which reindexes), is allowed.",
  },
  {
    code: 'validation_failed',
    status: 400,
    when: "A document value does not match its field's mapping (per document, in `errors[]`, with the field path), or index settings are invalid (`details.issues`).",
  },
  {
    code: 'invalid_document',
    status: 400,
    when: 'Per document, in `errors[]`: the document is not a JSON object.',
  },
  {
    code: 'query_too_complex',
    status: 400,
    when: 'The parsed `q` holds more than 1024 clauses (terms and phrases) or more than 64 phrases; `details` gives the counts and the caps.',
  },
  {
    code: 'search_timeout',
    status: 503,
    when: 'The search ran past its time budget (plugin option `searchTimeoutMs`, default 10000 ms) and was stopped; `details.budgetMs` gives the budget.',
  },
  {
    code: 'invalid_sort',
    status: 400,
    when: 'A `sort` entry names a field the index does not map (other than `id` and `_score`), or a direction other than `asc`/`desc` (`"price:up"`); `details.path` points at it.',
  },
  {
    code: 'document_too_deep',
    status: 400,
    when: 'Per document, in `errors[]`: the document nests objects and arrays more than 64 levels deep.',
  },
  {
    code: 'invalid_document_id',
    status: 400,
    when: 'Per document, in `errors[]`: `id` is not a non-empty string or a finite number, or is longer than 512 bytes in UTF-8.',
  },
  {
    code: 'invalid_vector',
    status: 400,
    when: 'Per document, in `errors[]`: `_vector` is not an array of `vectorDimensions` finite numbers, or the index has no `vectorDimensions`.',
  },
  {
    code: 'invalid_filter',
    status: 400,
    when: 'A search or delete filter is malformed, names an unknown field or a field that is not keyword, number, boolean, date or `id`, or has a value of the wrong type; `details.path` is the JSON path of the bad node, such as `filter.and[1].range.price`.',
  },
  {
    code: 'invalid_projection',
    status: 400,
    when: '`projection` mixes 1 and 0 (only `id` may differ), has a value other than 0 or 1 or an empty path, or comes together with `select`.',
  },
];
