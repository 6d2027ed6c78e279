// The two wink packages ship no types: the part of their API the bench uses.

declare module 'wink-bm25-text-search' {
  interface Bm25Engine {
    defineConfig(config: { fldWeights: Record<string, number>; bm25Params?: { k1?: number; b?: number; k?: number }; ovFldNames?: string[] }): boolean;
    definePrepTasks(tasks: Array<(input: any) => any>, field?: string): number;
    addDoc(doc: Record<string, string>, uniqueId: string | number): number;
    consolidate(fp?: number): boolean;
    search(text: string, limit?: number): Array<[string | number, number]>;
    reset(): boolean;
  }
  function bm25(): Bm25Engine;
  export = bm25;
}

declare module 'wink-nlp-utils' {
  const nlp: {
    string: { lowerCase(s: string): string; tokenize0(s: string): string[] };
    tokens: {
      removeWords(tokens: string[]): string[];
      stem(tokens: string[]): string[];
      propagateNegations(tokens: string[]): string[];
    };
  };
  export = nlp;
}
