/**
 * The configuration spec of `POST /v1/config/plan` (seed 000): `{version, indexes: [{name,
 * mappings, settings}]}`. Every problem is reported at once, each with its JSON path
 * (`body.indexes[1].mappings.title.type`), as a 400 `validation_failed`.
 */
import { isTesseraError, validate, ValidationError, z, type FieldIssue } from 'tessera-runtime/plugin';
import { indexSettingsPatchSchema, mappingsInputSchema } from '../index/mappings.js';

const indexNamePattern = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export const configSpecSchema = z.strictObject({
  version: z.string().min(1).max(64),
  indexes: z
    .array(
      z.strictObject({
        name: z.string().regex(indexNamePattern, 'an index name is 1-64 of a-z, 0-9, _ and -, starting with a letter or digit'),
        mappings: mappingsInputSchema.default({}),
        settings: indexSettingsPatchSchema.default({}),
      }),
    )
    .max(1000),
});

export type ConfigSpec = z.output<typeof configSpecSchema>;

/** Problems the schema cannot see item by item: a name given twice, autoEmbed without dimensions. */
function crossIssues(raw: unknown): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const indexes = (raw as { indexes?: unknown } | null)?.indexes;
  if (!Array.isArray(indexes)) return issues;
  const seen = new Map<unknown, number>();
  indexes.forEach((index: unknown, i) => {
    if (index === null || typeof index !== 'object') return;
    const { name, settings } = index as { name?: unknown; settings?: { autoEmbed?: unknown; vectorDimensions?: unknown } };
    const first = seen.get(name);
    if (typeof name === 'string' && first !== undefined)
      issues.push({ path: `body.indexes[${i}].name`, message: `"${name}" is already defined at indexes[${first}]` });
    else seen.set(name, i);
    if (settings?.autoEmbed === true && settings.vectorDimensions === undefined) {
      issues.push({ path: `body.indexes[${i}].settings.vectorDimensions`, message: 'required when autoEmbed is true' });
    }
  });
  return issues;
}

/** Validates a spec, reporting every problem at once (400 `validation_failed`). */
export function parseConfigSpec(raw: unknown): ConfigSpec {
  const cross = crossIssues(raw);
  let spec: ConfigSpec | undefined;
  let issues: FieldIssue[] = [];
  try {
    spec = validate(configSpecSchema, raw, 'configuration spec', 'body');
  } catch (err) {
    if (!isTesseraError(err) || err.code !== 'validation_failed') throw err;
    issues = (err.details as { issues: FieldIssue[] }).issues;
  }
  const all = [...issues, ...cross];
  if (all.length > 0) throw new ValidationError(`Invalid configuration spec: ${all.map((i) => `${i.path}: ${i.message}`).join('; ')}`, all);
  return spec!;
}
