import { describe, expect, it } from 'vitest';
import { redactConnection, scrub, secretsOf } from '../../../plugins/scanner/redact.js';

describe('credential redaction', () => {
  it('masks URL passwords, secret query parameters and the secret wherever else it appears', () => {
    expect(redactConnection('postgres://app:s3cr%40t@db:5432/s3cr@t?sslpassword=other1&x=1')).toBe('postgres://app:***@db:5432/***?sslpassword=***&x=1');
    expect(redactConnection('mysql://reader@db/data')).toBe('mysql://reader@db/data');
  });

  it('masks secret fields of a knex connection object, nested ones included, and keeps the rest', () => {
    const connection = {
      client: 'pg',
      connection: { host: 'db', user: 'app', password: 'hunter22', database: 'shop', ssl: { key: 'PRIVATEKEY', rejectUnauthorized: true } },
    };
    expect(redactConnection(connection)).toEqual({
      client: 'pg',
      connection: { host: 'db', user: 'app', password: '***', database: 'shop', ssl: { key: '***', rejectUnauthorized: true } },
    });
    const secrets = secretsOf(connection);
    expect(scrub('login failed for app with hunter22 (PRIVATEKEY)', secrets)).toBe('login failed for app with *** (***)');
  });

  it('scrubs user:password@ from any URL in a message, even one it was not told about', () => {
    expect(scrub('cannot reach mysql://root:toor@10.0.0.1:3306/x', [])).toBe('cannot reach mysql://root:***@10.0.0.1:3306/x');
  });
});
