import { createRequire } from 'node:module';

/** robots-parser's parsed file (its bundled typings do not describe its CommonJS export, so it is typed here). */
interface ParsedRobots {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
  getSitemaps(): string[];
}

const robotsParser = createRequire(import.meta.url)('robots-parser') as (url: string, contents: string) => ParsedRobots;

/** The rules of one origin's robots.txt, as the crawler applies them. */
export interface RobotsRules {
  allowed(url: string): boolean;
  /** `Crawl-delay` for our user agent (or `*`), in ms. */
  crawlDelayMs?: number;
  /** `Sitemap:` lines. */
  sitemaps: string[];
  /** `ok` (parsed), `none` (4xx: no rules), `unavailable` (5xx or unreachable: nothing may be fetched). */
  status: 'ok' | 'none' | 'unavailable';
}

/** Fetches robots.txt: the status, and the body when the status is 2xx. Throws when unreachable. */
export type RobotsFetch = (url: string) => Promise<{ status: number; body?: string }>;

const allowAll: RobotsRules = { allowed: () => true, sitemaps: [], status: 'none' };
const denyAll: RobotsRules = { allowed: () => false, sitemaps: [], status: 'unavailable' };

/**
 * robots.txt per origin, fetched once per crawl and parsed by robots-parser. As Google does: a 4xx
 * answer means no rules; a 5xx answer or an unreachable server means the origin is not crawled.
 */
export class RobotsCache {
  private readonly rules = new Map<string, Promise<RobotsRules>>();
  private readonly fetchRobots: RobotsFetch;
  private readonly agent: string;

  constructor(fetchRobots: RobotsFetch, agent: string) {
    this.fetchRobots = fetchRobots;
    this.agent = agent;
  }

  get(origin: string): Promise<RobotsRules> {
    let found = this.rules.get(origin);
    if (!found) {
      found = this.load(origin);
      this.rules.set(origin, found);
    }
    return found;
  }

  private async load(origin: string): Promise<RobotsRules> {
    const url = `${origin}/robots.txt`;
    let answer: { status: number; body?: string };
    try {
      answer = await this.fetchRobots(url);
    } catch {
      return denyAll;
    }
    if (answer.status >= 500) return denyAll;
    if (answer.status < 200 || answer.status >= 300 || answer.body === undefined) return allowAll;
    const parsed = robotsParser(url, answer.body);
    const delay = parsed.getCrawlDelay(this.agent);
    return {
      // A URL of another origin is not this file's business (robots-parser answers undefined).
      allowed: (target) => parsed.isAllowed(target, this.agent) !== false,
      ...(delay !== undefined && Number.isFinite(delay) && delay > 0 ? { crawlDelayMs: Math.round(delay * 1000) } : {}),
      sitemaps: parsed.getSitemaps(),
      status: 'ok',
    };
  }
}
