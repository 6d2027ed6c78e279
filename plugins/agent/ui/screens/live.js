import { useEffect, useRef } from '../lib/preact.js';

/**
 * `fn` at most once per `ms`: a burst of feed events (a job moving through several states, a
 * replay's job events) becomes one re-read, run `ms` after the first event of the burst.
 */
export function useBatched(fn, ms = 150) {
  const saved = useRef(fn);
  saved.current = fn;
  const timer = useRef(null);
  useEffect(() => () => clearTimeout(timer.current), []);
  return () => {
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      saved.current();
    }, ms);
  };
}
