// Brand kits in the table, and their logos in the bucket.
import { sha256 } from '../digest.ts';
import { draftPrefix, isKeyUnder, isOwnDraftKey, isOwnUploadKey } from '../uploads/keys.ts';
import type { LogoRole } from './schemas.ts';

// Here, not beside the logo schemas: the team functions read a kit's key, and the schemas would come
// into their bundles with it.
/** The file extension a logo copy of each image type is named with. */
const LOGO_EXTENSIONS: Readonly<Record<string, string>> = {
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/gif': '.gif',
  'image/webp': '.webp',
};

export const brandKitKeys = {
  brandKit: (kitId: string) => ({ pk: `KIT#${kitId}`, sk: 'KIT' }),
  /** gsi1: a user's brand kits, newest first. */
  byOwner: (userId: string, kitId: string) => ({ gsi1pk: `USER#${userId}#KITS`, gsi1sk: `KIT#${kitId}` }),
};

/** A draft's logos: one folder per generated draft under the caller's draft prefix (expires in a day). */
export const draftLogoKey = (userId: string, draftId: string, role: LogoRole) =>
  `${draftPrefix(userId)}${draftId}/${role}.png`;

const brandKitPrefix = (userId: string) => `brand-kits/${userId}/`;

/**
 * The saved kits' copy of a logo source (a draft logo or a direct upload), kept for as long as the
 * kits that name it: one per source, named by the source's digest (every kit naming that source
 * names this copy, so saving it again stores nothing more), and for the image type it holds: the
 * stored type of a direct upload (whose file name the user chose, `logo` or `mark.jpeg` for a PNG),
 * else the source's own extension (draft logos are PNGs named so).
 */
export const brandKitLogoKey = (userId: string, sourceKey: string, mediaType?: string) =>
  `${brandKitPrefix(userId)}logos/${sha256(sourceKey)}${
    (mediaType && LOGO_EXTENSIONS[mediaType]) ??
    /\.[a-z0-9]{1,5}$/i.exec(sourceKey)?.[0].toLowerCase() ??
    '.png'
  }`;

/** A saved kit's logo (before copies were kept per source, a copy per kit: `<kit id>/<role>.<ext>`). */
export const isOwnKitLogoKey = (userId: string, key: string) => isKeyUnder(brandKitPrefix(userId), key);

/** Logo keys a save may name: the caller's draft logos, direct uploads and other kits' logos. */
export const isOwnLogoSource = (userId: string, key: string) =>
  isOwnDraftKey(userId, key) || isOwnUploadKey(userId, key) || isOwnKitLogoKey(userId, key);
