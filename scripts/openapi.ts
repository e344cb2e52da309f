// npm run openapi: writes docs/openapi.json from the route table and the handlers' schemas.
import { writeFile } from 'node:fs/promises';
import { generateOpenApiDocument } from '../infra/local/openapi.ts';

process.env.LOG_LEVEL ||= 'silent'; // empty is unset, as for PORT and DATA_DIR
const document = await generateOpenApiDocument();
await writeFile('docs/openapi.json', `${JSON.stringify(document, null, 2)}\n`);
console.log(`wrote docs/openapi.json (${Object.keys(document.paths).length} paths)`);
