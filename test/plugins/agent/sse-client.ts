/** Reads an SSE response into its messages (`id`, `event`, `data` joined), until it ends or `stopAfter` says so. */
export async function readSse(
  res: Response,
  stopAfter?: (message: { id?: string; event?: string; data: string }, all: Array<{ id?: string; event?: string; data: string }>) => boolean,
): Promise<Array<{ id?: string; event?: string; data: string }>> {
  const messages: Array<{ id?: string; event?: string; data: string }> = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const message: { id?: string; event?: string; data: string } = { data: '' };
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('id: ')) message.id = line.slice(4);
        else if (line.startsWith('event: ')) message.event = line.slice(7);
        else if (line.startsWith('data: ')) data.push(line.slice(6));
      }
      if (data.length === 0) continue;
      message.data = data.join('\n');
      messages.push(message);
      if (stopAfter?.(message, messages)) {
        await reader.cancel();
        return messages;
      }
    }
  }
  return messages;
}
