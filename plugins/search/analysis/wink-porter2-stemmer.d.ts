// wink-porter2-stemmer ships no type declarations.
declare module 'wink-porter2-stemmer' {
  /** The Porter2 stem of a lower-cased English word. */
  export default function stem(word: string): string;
}
