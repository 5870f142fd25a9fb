import { expect, test } from 'vitest';
import { serializeAccessToken, serializeCreatedAccessToken, tokenPermission } from './access-token';

const createdAt = new Date('2026-11-01T10:00:00.000Z');

test('a listed token: the dashboard and the CLI shape, never a secret', () => {
  const row = { id: 't1', name: 'ci', permission: 'read_only', createdAt, lastUsedAt: null, revokedAt: new Date('2026-11-02T00:00:00.000Z'), secretHash: 'x' };
  expect(serializeAccessToken(row)).toStrictEqual({
    id: 't1',
    name: 'ci',
    permission: 'read_only',
    created_at: '2026-11-01T10:00:00.000Z',
    last_used_at: null,
    revoked_at: '2026-11-02T00:00:00.000Z',
  });
});

test('the created token carries its secret, once', () => {
  expect(serializeCreatedAccessToken({ id: 't2', secret: 's', name: 'n', permission: 'read_write', createdAt })).toStrictEqual({
    id: 't2',
    secret: 's',
    name: 'n',
    permission: 'read_write',
    created_at: '2026-11-01T10:00:00.000Z',
  });
});

test('only read_only is read-only', () => {
  expect(tokenPermission('read_only')).toBe('read_only');
  expect(tokenPermission('read_write')).toBe('read_write');
  expect(tokenPermission('')).toBe('read_write');
});
