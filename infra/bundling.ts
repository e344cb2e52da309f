// The one esbuild configuration: the CDK stack bundles every function with it, and the benchmarks
// build the same bundles to measure size and cold start.
import { type BundlingOptions, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';

/** ESM needs `require` for the few CommonJS dependencies that call it. */
const REQUIRE_SHIM = "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);";

export const esbuildOptions = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  minify: true,
  sourcemap: true,
  mainFields: ['module', 'main'],
  banner: { js: REQUIRE_SHIM },
  // The AWS SDK is bundled (tree-shaken, pinned by our lockfile) rather than taken from the runtime,
  // except the credential providers past the environment: Lambda always hands credentials over in
  // environment variables, so the SSO/INI/IMDS/… providers (about 130 KB, loaded lazily by the SDK)
  // are never reached there.
  external: [
    '@aws-sdk/credential-provider-sso',
    '@aws-sdk/credential-provider-ini',
    '@aws-sdk/credential-provider-process',
    '@aws-sdk/credential-provider-web-identity',
    '@aws-sdk/credential-provider-http',
    '@smithy/credential-provider-imds',
  ] as string[],
} as const;

export const cdkBundling: BundlingOptions = {
  format: OutputFormat.ESM,
  target: esbuildOptions.target,
  minify: esbuildOptions.minify,
  sourceMap: esbuildOptions.sourcemap,
  mainFields: [...esbuildOptions.mainFields],
  banner: esbuildOptions.banner.js,
  externalModules: [...esbuildOptions.external],
  bundleAwsSDK: true,
};
