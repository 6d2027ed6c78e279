/**
 * Helpers for testing plugins, exported as `tessera/testing`. They import vitest: use them from test
 * files only.
 */
export { defineConformance, type ConformanceCase, type ConformanceOptions, type ConformanceSuite } from './conformance.js';
export { tenancyConformance, type TenancyConformanceOptions, type TenantClient, type TenantResource } from './tenancy.js';
