import { describe, expect, it } from 'vitest';
import { isApiPath, isProxyPath } from './apiPaths';

describe('isApiPath', () => {
  const cases: [string, boolean][] = [
    ['/api', true],
    ['/api/', true],
    ['/api/v1/namespaces', true],
    ['/apis/apps/v1/deployments', true],
    ['/version', true],
    ['/openapi/v3', true],
    ['/healthz', true],
    ['/livez/ping', true],
    ['/readyz', true],
    ['/metrics', true],
    ['/debug/kubesim/clock', true],
    ['/debugger.js', false],
    ['/', false],
    ['/index.html', false],
    ['/apiary', false],
    ['/src/ui/api/client.ts', false],
    ['/@vite/client', false],
    ['/assets/api-1234.js', false],
  ];
  it.each(cases)('%s -> %s', (path, expected) => {
    expect(isApiPath(path)).toBe(expected);
  });
});

describe('isProxyPath', () => {
  it.each([
    ['/api/v1/namespaces/default/services/web:http/proxy/', true],
    ['/api/v1/namespaces/default/services/web/proxy', true],
    ['/api/v1/namespaces/dev/pods/web-1:8080/proxy/docs/a.html', true],
    ['/api/v1/namespaces/default/pods/web', false],
    ['/api/v1/namespaces/default/pods/web/proxyx', false],
    ['/api/v1/namespaces/default/configmaps/web/proxy/', false],
    ['/api/v1/nodes/node-1/proxy/', false],
  ])('%s -> %s', (path, expected) => {
    expect(isProxyPath(path)).toBe(expected);
  });
});
