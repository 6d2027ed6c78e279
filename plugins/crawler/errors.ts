import { defineErrors } from 'tessera-runtime/plugin';

/** Every error the crawler raises (docs/errors.md is generated from this table). */
export const errors = defineErrors({
  schedule_not_found: { status: 404, message: 'No schedule "{id}".', when: "No crawl schedule of the caller's tenant has that id." },
  seed_not_allowed: {
    status: 403,
    message: 'Seed "{url}" is refused by the egress policy ({reason}); set the crawler option allowPrivateAddresses or allowHosts to crawl it.',
    when: 'A seed is a loopback, private or link-local address (or names `localhost`) and the crawler options `allowPrivateAddresses` / `allowHosts` do not allow it, or it carries credentials.',
  },
  index_url_not_allowed: {
    status: 403,
    message: 'autoIndex URL "{url}" is refused by the egress policy ({reason}).',
    when: '`autoIndex.engineUrl` or `autoIndex.bulkUrl` names an address the egress policy refuses (loopback or private without `allowPrivateAddresses` or `allowHosts`, credentials in the URL).',
  },
  crawl_index_failed: {
    status: 502,
    message: 'The crawl could not write to index "{index}" at {destination}: {reason}',
    when: 'Recorded on a crawl job (never answered by a request) when the target index cannot be created or written.',
  },
});
