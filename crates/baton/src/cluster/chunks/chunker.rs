//! Cutting a partition's items into chunks: resuming the reader from a checkpoint, reading
//! and processing up to one commit interval of items, and the checkpoint after them.

use baton_core::FencingToken;
use baton_core::cluster::{JsonText, PartitionCheckpointParams};

use super::read::{ItemProcessor, ItemReader, decode, encode};
use super::{Chunk, StepError};

/// A reader and a processor producing the chunks of one claim of a partition.
pub(super) struct Chunker<R, P> {
    reader: R,
    processor: P,
    interval: usize,
    partition: i64,
    token: FencingToken,
    /// Items read so far, those of earlier claims included.
    read: u64,
    exhausted: bool,
}

impl<R, P> Chunker<R, P>
where
    R: ItemReader,
    P: ItemProcessor<R::Item>,
{
    pub(super) fn new(
        reader: R,
        processor: P,
        interval: usize,
        partition: i64,
        token: FencingToken,
    ) -> Self {
        Chunker { reader, processor, interval, partition, token, read: 0, exhausted: false }
    }

    /// Opens the reader after the items `resume` records as committed (at the start without
    /// one) and answers how many those are.
    pub(super) async fn open(&mut self, resume: Option<&JsonText>) -> Result<u64, StepError> {
        let (items, position) = match resume {
            None => (0, None),
            Some(checkpoint) => {
                let (items, position) = decode::<R::Position>(checkpoint)
                    .map_err(|source| StepError::Read { index: 0, source })?;
                (items, Some(position))
            }
        };
        self.reader
            .open(position)
            .await
            .map_err(|source| StepError::Read { index: items, source })?;
        self.read = items;
        Ok(items)
    }

    /// Reads and processes up to one commit interval of items into `outputs` (emptied first),
    /// and answers them as a chunk with the checkpoint after them; `None` at the end.
    pub(super) async fn next(
        &mut self,
        mut outputs: Vec<P::Output>,
    ) -> Result<Option<Chunk<P::Output>>, StepError> {
        outputs.clear();
        let first = self.read;
        while !self.exhausted && outputs.len() < self.interval {
            let index = self.read;
            let item =
                self.reader.next().await.map_err(|source| StepError::Read { index, source })?;
            let Some(item) = item else {
                self.exhausted = true;
                break;
            };
            let output = self
                .processor
                .process(item)
                .map_err(|source| StepError::Item { index, source: source.into() })?;
            outputs.push(output);
            self.read += 1;
        }
        if outputs.is_empty() {
            return Ok(None);
        }
        let checkpoint = encode(self.read, &self.reader.position())
            .map_err(|source| StepError::Write { items: first..self.read, source })?;
        let params = PartitionCheckpointParams {
            id: self.partition,
            token: self.token,
            checkpoint,
            progress: self.read,
        };
        Ok(Some(Chunk::new(outputs, first, params)))
    }
}

#[cfg(test)]
mod tests {
    use std::ops::Range;

    use super::*;
    use baton_core::{Error, ErrorKind, Result};

    /// Reads `0..end`, its position being the next item's value.
    struct Numbers {
        next: u64,
        end: u64,
    }

    impl ItemReader for Numbers {
        type Item = u64;
        type Position = u64;

        async fn open(&mut self, from: Option<u64>) -> Result<()> {
            self.next = from.unwrap_or(0);
            Ok(())
        }

        async fn next(&mut self) -> Result<Option<u64>> {
            if self.next == self.end {
                return Ok(None);
            }
            self.next += 1;
            Ok(Some(self.next - 1))
        }

        fn position(&self) -> u64 {
            self.next
        }
    }

    type Doubling = fn(u64) -> Result<u64, String>;

    fn chunker(end: u64, interval: usize) -> Chunker<Numbers, Doubling> {
        let token = FencingToken::new(7).unwrap();
        Chunker::new(Numbers { next: 0, end }, |n| Ok(n * 2), interval, 3, token)
    }

    /// Every chunk's items, first output and checkpoint, until the end.
    async fn drain(chunker: &mut Chunker<Numbers, Doubling>) -> Vec<(Range<u64>, u64, String)> {
        let mut chunks = Vec::new();
        while let Some(chunk) = chunker.next(Vec::new()).await.unwrap() {
            assert_eq!(chunk.outputs().len() as u64, chunk.items().end - chunk.items().start);
            assert_eq!((chunk.checkpoint().id, chunk.token().get()), (3, 7));
            let checkpoint = chunk.checkpoint().checkpoint.to_string();
            chunks.push((chunk.items(), chunk.outputs()[0], checkpoint));
        }
        chunks
    }

    fn at(items: u64) -> String {
        format!(r#"{{"items":{items},"position":{items}}}"#)
    }

    #[tokio::test]
    async fn chunks_hold_one_interval_and_the_last_the_rest() {
        let mut fresh = chunker(25, 10);
        assert_eq!(fresh.open(None).await.unwrap(), 0);
        let chunks = drain(&mut fresh).await;
        assert_eq!(chunks, [(0..10, 0, at(10)), (10..20, 20, at(20)), (20..25, 40, at(25))]);
        assert!(fresh.next(Vec::<u64>::new()).await.unwrap().is_none(), "ended for good");

        let mut even = chunker(20, 10);
        even.open(None).await.unwrap();
        assert_eq!(drain(&mut even).await.len(), 2, "no empty chunk after a full one");
    }

    #[tokio::test]
    async fn a_resumed_claim_starts_after_the_last_checkpoint() {
        let mut resumed = chunker(25, 10);
        let saved = JsonText::new(at(20)).unwrap();
        assert_eq!(resumed.open(Some(&saved)).await.unwrap(), 20);
        assert_eq!(drain(&mut resumed).await, [(20..25, 40, at(25))]);

        let mut done = chunker(25, 10);
        done.open(Some(&JsonText::new(at(25)).unwrap())).await.unwrap();
        assert!(drain(&mut done).await.is_empty(), "a finished partition has nothing left");
    }

    #[tokio::test]
    async fn a_refused_item_and_a_foreign_checkpoint_are_named() {
        let token = FencingToken::new(7).unwrap();
        let picky = |n: u64| if n == 13 { Err(format!("{n} is unlucky")) } else { Ok(n) };
        let mut refusing = Chunker::new(Numbers { next: 0, end: 25 }, picky, 10, 3, token);
        refusing.open(None).await.unwrap();
        assert!(refusing.next(Vec::new()).await.unwrap().is_some());
        let err = refusing.next(Vec::new()).await.unwrap_err();
        assert!(matches!(err, StepError::Item { index: 13, .. }), "{err:?}");
        assert_eq!(err.to_string(), "processing item 13: 13 is unlucky");
        assert_eq!(Error::from(err).kind(), ErrorKind::InvalidInput);

        let foreign = JsonText::new(r#"{"row":500}"#).unwrap();
        let err = chunker(25, 10).open(Some(&foreign)).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidInput);
        assert!(
            err.to_string().starts_with(r#"reading item 0: unreadable checkpoint {"row":500}"#)
        );
    }
}
