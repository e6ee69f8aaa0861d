// A minimal SigV4 header signer for S3 requests from node tests (path-style URLs,
// payload hash of the actual body). Not the app's signer: an independent one, so a
// test of the server does not depend on the code under test.
//
//   const res = await signedFetch(`${endpoint}/bucket/key`, { method: 'PUT', body, headers },
//                                 { accessKeyId, secretAccessKey, region });
//   const get = await fetch(presign(`${endpoint}/bucket/key`, credentials, 300));

import { createHash, createHmac } from 'node:crypto';

const sha256 = (data) => createHash('sha256').update(data).digest('hex');
const hmac = (key, data) => createHmac('sha256', key).update(data).digest();
/** RFC 3986 encoding, as SigV4 wants it (S3: each path segment once). */
const enc = (s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * The headers to add to a request for it to be signed (Authorization, x-amz-date,
 * x-amz-content-sha256). Signs host, x-amz-* and the given headers.
 */
export function signHeaders({ method = 'GET', url, headers = {}, body = '' }, { accessKeyId, secretAccessKey, region = 'us-east-1' }, now = new Date()) {
  const u = new URL(url);
  const amzDate = now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  const date = amzDate.slice(0, 8);
  const payloadHash = sha256(body);
  const all = { ...Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), String(v).trim()])) };
  all.host = u.host;
  all['x-amz-date'] = amzDate;
  all['x-amz-content-sha256'] = payloadHash;
  const names = Object.keys(all).sort();
  const canonicalPath = u.pathname.split('/').map((s) => enc(decodeURIComponent(s))).join('/');
  const query = [...u.searchParams].map(([k, v]) => [enc(k), enc(v)]).sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  const canonical = [
    method,
    canonicalPath,
    query.map(([k, v]) => `${k}=${v}`).join('&'),
    ...names.map((n) => `${n}:${all[n]}`),
    '',
    names.join(';'),
    payloadHash,
  ].join('\n');
  const scope = `${date}/${region}/s3/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  let key = hmac(`AWS4${secretAccessKey}`, date);
  for (const part of [region, 's3', 'aws4_request']) key = hmac(key, part);
  const signature = createHmac('sha256', key).update(toSign).digest('hex');
  return {
    authorization: `AWS4-HMAC-SHA256 Credential=${accessKeyId}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`,
    'x-amz-date': amzDate,
    'x-amz-content-sha256': payloadHash,
  };
}

/** A presigned GET URL (X-Amz-* query parameters, UNSIGNED-PAYLOAD, host signed only). */
export function presign(url, { accessKeyId, secretAccessKey, region = 'us-east-1' }, expiresSecs = 300, now = new Date()) {
  const u = new URL(url);
  const amzDate = now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  const date = amzDate.slice(0, 8);
  const scope = `${date}/${region}/s3/aws4_request`;
  u.searchParams.set('X-Amz-Algorithm', 'AWS4-HMAC-SHA256');
  u.searchParams.set('X-Amz-Credential', `${accessKeyId}/${scope}`);
  u.searchParams.set('X-Amz-Date', amzDate);
  u.searchParams.set('X-Amz-Expires', String(expiresSecs));
  u.searchParams.set('X-Amz-SignedHeaders', 'host');
  const query = [...u.searchParams].map(([k, v]) => [enc(k), enc(v)]).sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  const canonicalPath = u.pathname.split('/').map((s) => enc(decodeURIComponent(s))).join('/');
  const canonical = ['GET', canonicalPath, query.map(([k, v]) => `${k}=${v}`).join('&'), `host:${u.host}`, '', 'host', 'UNSIGNED-PAYLOAD'].join('\n');
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  let key = hmac(`AWS4${secretAccessKey}`, date);
  for (const part of [region, 's3', 'aws4_request']) key = hmac(key, part);
  u.searchParams.set('X-Amz-Signature', createHmac('sha256', key).update(toSign).digest('hex'));
  return u.toString();
}

/** fetch, signed with SigV4 for S3. `init.body` must be a string or a Buffer. */
export function signedFetch(url, init = {}, credentials) {
  const method = init.method ?? 'GET';
  const headers = init.headers ?? {};
  const signed = signHeaders({ method, url, headers, body: init.body ?? '' }, credentials);
  return fetch(url, { ...init, method, headers: { ...headers, ...signed } });
}
