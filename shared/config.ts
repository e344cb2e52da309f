// Runtime configuration, read from the environment once per container.
// The local runtime and the tests set these before the first handler runs.
const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`Missing environment variable ${name}`);
  return value;
};

export const config = {
  get region() {
    return env('AWS_REGION', 'us-east-1');
  },
  get tableName() {
    return env('TABLE_NAME');
  },
  get bucketName() {
    return env('BUCKET_NAME');
  },
  /** Set only on the embedded runtime: where dynalite and s3rver listen. */
  get dynamodbEndpoint() {
    return process.env.DYNAMODB_ENDPOINT;
  },
  get s3Endpoint() {
    return process.env.S3_ENDPOINT;
  },
  auth: {
    get issuer() {
      return env('AUTH_ISSUER');
    },
    get audience() {
      return env('AUTH_AUDIENCE');
    },
    /** AWS: the issuer's JWKS (RS256/ES256). */
    get jwksUrl() {
      return process.env.AUTH_JWKS_URL;
    },
    /** Embedded runtime only: the HS256 development secret. */
    get devSecret() {
      return process.env.AUTH_DEV_SECRET;
    },
  },
};
