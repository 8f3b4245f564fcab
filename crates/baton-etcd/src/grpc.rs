//! The two messages of etcd's `LeaseKeepAlive` stream in gRPC's framing, written and read by
//! hand: a request is one integer field and an answer three, so no protobuf compiler is needed.
//!
//! A gRPC message is a flag byte (0: not compressed), its length as 4 big-endian bytes, then the
//! protobuf encoding. `LeaseKeepAliveRequest` is `{ int64 ID = 1; }`; `LeaseKeepAliveResponse`
//! is `{ ResponseHeader header = 1; int64 ID = 2; int64 TTL = 3; }`.

use bytes::{Buf, BufMut, Bytes, BytesMut};

use crate::wire::LeaseAnswer;

/// The path of the stream's method.
pub(crate) const KEEP_ALIVE_PATH: &str = "/etcdserverpb.Lease/LeaseKeepAlive";

/// The bytes on the wire of a keep-alive of etcd lease `id`.
pub(crate) fn keep_alive_request(id: i64) -> Bytes {
    let mut message = BytesMut::with_capacity(16);
    message.put_u8(tag(1, VARINT));
    put_varint(&mut message, id as u64);
    let mut framed = BytesMut::with_capacity(5 + message.len());
    framed.put_u8(0);
    framed.put_u32(message.len() as u32);
    framed.extend_from_slice(&message);
    framed.freeze()
}

/// Takes the first whole message off `buffer`, if it holds one; an error for a compressed
/// message (never asked for) or one that is not a keep-alive answer.
pub(crate) fn next_answer(buffer: &mut BytesMut) -> Result<Option<LeaseAnswer>, String> {
    if buffer.len() < 5 {
        return Ok(None);
    }
    let length = u32::from_be_bytes([buffer[1], buffer[2], buffer[3], buffer[4]]) as usize;
    if buffer.len() < 5 + length {
        return Ok(None);
    }
    if buffer[0] != 0 {
        return Err("a compressed gRPC message, which was not asked for".into());
    }
    buffer.advance(5);
    let message = buffer.split_to(length).freeze();
    read_answer(message).map(Some)
}

const VARINT: u8 = 0;
const LENGTH_DELIMITED: u8 = 2;

fn tag(field: u8, wire_type: u8) -> u8 {
    (field << 3) | wire_type
}

fn put_varint(out: &mut BytesMut, mut value: u64) {
    while value >= 0x80 {
        out.put_u8((value as u8) | 0x80);
        value >>= 7;
    }
    out.put_u8(value as u8);
}

fn varint(message: &mut Bytes) -> Result<u64, String> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        if !message.has_remaining() {
            break;
        }
        let byte = message.get_u8();
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err("a truncated protobuf integer".into())
}

fn read_answer(mut message: Bytes) -> Result<LeaseAnswer, String> {
    let mut answer = LeaseAnswer::default();
    while message.has_remaining() {
        let key = varint(&mut message)?;
        match (key >> 3, (key & 7) as u8) {
            (2, VARINT) => answer.id = varint(&mut message)? as i64,
            (3, VARINT) => answer.ttl = varint(&mut message)? as i64,
            (_, VARINT) => {
                varint(&mut message)?;
            }
            (_, LENGTH_DELIMITED) => {
                let length = varint(&mut message)? as usize;
                if message.remaining() < length {
                    return Err("a truncated protobuf field".into());
                }
                message.advance(length);
            }
            (field, wire_type) => {
                return Err(format!("field {field} of protobuf wire type {wire_type}"));
            }
        }
    }
    Ok(answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An answer as etcd encodes it: a header (cluster id, member id, revision, raft term),
    /// then the lease's id and TTL.
    fn etcd_answer(id: i64, ttl: i64) -> BytesMut {
        let mut header = BytesMut::new();
        for (field, value) in [(1, 14_841_639_068_965_178_418u64), (2, 1_027_665), (3, 42), (4, 2)]
        {
            header.put_u8(tag(field, VARINT));
            put_varint(&mut header, value);
        }
        let mut message = BytesMut::new();
        message.put_u8(tag(1, LENGTH_DELIMITED));
        put_varint(&mut message, header.len() as u64);
        message.extend_from_slice(&header);
        message.put_u8(tag(2, VARINT));
        put_varint(&mut message, id as u64);
        message.put_u8(tag(3, VARINT));
        put_varint(&mut message, ttl as u64);
        let mut framed = BytesMut::new();
        framed.put_u8(0);
        framed.put_u32(message.len() as u32);
        framed.extend_from_slice(&message);
        framed
    }

    #[test]
    fn a_request_carries_the_lease_id_as_field_one() {
        let request = keep_alive_request(7_587_899_186_643_401_221);
        assert_eq!(&request[..5], &[0, 0, 0, 0, 10]);
        let mut message = request.slice(5..);
        assert_eq!(message.get_u8(), 0x08);
        assert_eq!(varint(&mut message).unwrap(), 7_587_899_186_643_401_221);
        assert!(!message.has_remaining());
    }

    #[test]
    fn answers_are_read_whole_in_order_and_only_once_complete() {
        let mut buffer = etcd_answer(77, 30);
        buffer.extend_from_slice(&etcd_answer(78, 0));
        let second_half = buffer.split_off(buffer.len() - 3);
        let first = next_answer(&mut buffer).unwrap().expect("a whole answer");
        assert_eq!((first.id, first.ttl), (77, 30));
        assert!(next_answer(&mut buffer).unwrap().is_none(), "the second is not complete yet");
        buffer.extend_from_slice(&second_half);
        let second = next_answer(&mut buffer).unwrap().expect("now whole");
        assert_eq!((second.id, second.ttl), (78, 0));
        assert!(buffer.is_empty());
    }

    #[test]
    fn a_compressed_or_garbled_answer_is_an_error() {
        let mut compressed = etcd_answer(1, 1);
        compressed[0] = 1;
        assert!(next_answer(&mut compressed).is_err());
        let mut garbled = BytesMut::from(&[0u8, 0, 0, 0, 2, 0x0d, 0xff][..]);
        assert!(next_answer(&mut garbled).is_err());
    }
}
