/** What the catalogue routes need of the semantic cache: purging a removed model's entries. */
export interface SemanticCacheLike {
  purgeModel(tenant: string, modelId: string): Promise<number>;
}
