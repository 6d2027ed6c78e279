/**
 * Helpers for testing plugins, exported as `tessera-runtime/testing`. The conformance suites import vitest:
 * use this entry from test files only (vitest is an optional peer dependency of Tessera).
 */
export { createTestApp, type CreateTestAppOptions, type TestApp, type TestFetchInit } from './create-test-app.js';
export { defineConformance, type ConformanceCase, type ConformanceOptions, type ConformanceSuite } from './conformance.js';
export { tenancyConformance, type TenancyConformanceOptions, type TenantClient, type TenantResource } from './tenancy.js';
