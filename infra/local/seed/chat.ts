// A chat session about the seeded project: a user's message with a document attached, the agent's
// reply (written through the agent's own write path), and a follow-up.
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { s3 } from '../../../shared/aws/s3.ts';
import { sendMessage } from '../../../shared/chat/send.ts';
import { addAssistantMessage, createChatSession } from '../../../shared/chat/store.ts';
import { config } from '../../../shared/config.ts';
import { newId } from '../../../shared/ids.ts';
import { userUploadPrefix } from '../../../shared/uploads/keys.ts';
import type { Seeder } from './index.ts';

const BRIEF = `# Spring trail launch

- Hero product: the Kestrel trail runner
- Channels: Instagram, blog
- Tone: encouraging, outdoorsy, no jargon
`;

export const seedChat: Seeder = async ({ owner }, seeded = {}) => {
  const session = await createChatSession(owner, {
    title: 'Spring launch questions',
    team_id: null,
    project_id: seeded.project_id ?? null,
  });
  const key = `${userUploadPrefix(owner)}${newId()}/launch-brief.md`;
  await s3().send(
    new PutObjectCommand({ Bucket: config.bucketName, Key: key, Body: BRIEF, ContentType: 'text/markdown' }),
  );
  await sendMessage(
    owner,
    session.id,
    {
      content: 'Here is the launch brief. Can you draft three Instagram captions for the hero product?',
      attachments: [{ key, name: 'Launch brief.md', media_type: null }],
    },
    undefined,
  );
  await addAssistantMessage(
    session.id,
    '1. Trails call, Kestrel answers.\n2. Light on your feet, steady on the rocks.\n3. Your spring starts at the trailhead.',
  );
  await sendMessage(
    owner,
    session.id,
    { content: 'Love the second one. Make it a bit shorter?', attachments: null },
    undefined,
  );
  // The upload's key too: the sample send event attaches it (so its S3 read is measured and invoked).
  return { chat_session_id: session.id, chat_upload_key: key };
};
