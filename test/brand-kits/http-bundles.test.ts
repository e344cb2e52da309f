// The brand-kit and upload functions bundle as CDK bundles them: pdf.js (unpdf) and the DOCX reader
// stay out of every function but generate-from-upload (which imports them lazily; bundling it takes
// long, so it is left to test/infra/bundles.test.ts, which builds every function once and invokes
// it), and the others keep within their size budget.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { build } from 'esbuild';
import { esbuildOptions } from '../../infra/bundling.ts';
import { routes } from '../../infra/routes.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const GENERATE = 'brand-kits/generate-from-upload';
/** Functions that sign S3 URLs carry the S3 client and the presigner beside DynamoDB's. */
const S3_SIGNING_BUDGET_BYTES = 450 * 1024;

async function bundle(entry: string) {
  const result = await build({
    ...esbuildOptions,
    mainFields: [...esbuildOptions.mainFields],
    entryPoints: [join(ROOT, 'functions', `${entry}.ts`)],
    absWorkingDir: ROOT,
    outdir: join(ROOT, 'cdk.out', 'bundle-check'),
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const code = result.outputFiles!.find((file) => file.path.endsWith('.js'))!;
  return { bytes: code.contents.length, inputs: Object.keys(result.metafile!.inputs) };
}

const ours = routes.filter((r) => r.entry.startsWith('brand-kits/') || r.entry.startsWith('uploads/'));

describe('bundles of the brand-kit and upload functions', () => {
  it('covers every route of both domains', () => {
    assert.deepEqual(ours.map((r) => r.entry).sort(), [
      'brand-kits/create-brand-kit',
      'brand-kits/generate-from-upload',
      'brand-kits/get-brand-kit',
      'uploads/create-upload',
    ]);
  });

  for (const route of ours.filter((r) => r.entry !== GENERATE)) {
    it(`${route.entry} carries no PDF or DOCX parser and stays within budget`, async () => {
      const { bytes, inputs } = await bundle(route.entry);
      assert.deepEqual(
        inputs.filter((path) => path.includes('node_modules/unpdf/') || path.includes('brand-kits/extract/')),
        [],
      );
      assert.ok(bytes <= S3_SIGNING_BUDGET_BYTES, `${route.entry}: ${bytes} bytes`);
    });
  }
});
