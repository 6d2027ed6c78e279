/** The runtime API, exported as `tessera-runtime`: start a deployment from a manifest, in code or from a file. */
export { App, startApp, type AppOptions } from './app.js';
export { loadManifest, parseManifest, resolveManifest, ManifestError, type ResolvedManifest, type ResolvedListener } from './manifest.js';
export { manifestSchema, defaultLimits, defaultThrottle, type ManifestInput } from './manifest-schema.js';
export { PluginError, builtinPluginNames } from './plugin-loader.js';
export { Store, StoreNamespace, StoreError, STORE_FORMAT_VERSION } from './store.js';
export { createLogger, type Logger } from './logger.js';
export { httpErrorCodes, startupErrorCodes, type ErrorCodeDoc } from './error-codes.js';
export { runtimeVersion } from './version.js';
export * from './plugin.js';
