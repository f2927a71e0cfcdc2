package postgres

import (
	"encoding/binary"
	"reflect"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// The batch statements send their rows as arrays, thousands of elements
// for a crawl's batch of edges or links. pgx encodes a slice element by
// element, each through an interface value (an allocation per element), and
// that took about 5% of a PostgreSQL crawl's CPU in the crawling process.
// Parameters of the types below are written straight into PostgreSQL's
// binary array format instead, by the codecs registerArrayCodecs puts in
// front of pgx's own on every connection. Anything else, and these types in
// the text format, still go through pgx's codecs; the types are mapped to
// their PostgreSQL array types for the query modes that send no parameter
// types (default_query_exec_mode=simple_protocol or exec).
type (
	// uuidArray is a UUID[] parameter.
	uuidArray [][16]byte
	// timeArray is a TIMESTAMPTZ[] parameter.
	timeArray []time.Time
	// textArray is a TEXT[] parameter.
	textArray []string
)

// binaryArray is a one-dimensional array parameter without NULL elements
// that can write its elements in the binary format.
type binaryArray interface {
	// elements returns the number of elements, and whether the slice is
	// nil, which is NULL, as pgx has it.
	elements() (n int, null bool)
	// appendElements appends each element as its length then its bytes.
	appendElements(buf []byte) []byte
}

func (a uuidArray) elements() (int, bool) { return len(a), a == nil }

func (a uuidArray) appendElements(buf []byte) []byte {
	for _, id := range a {
		buf = binary.BigEndian.AppendUint32(buf, 16)
		buf = append(buf, id[:]...)
	}
	return buf
}

func (a timeArray) elements() (int, bool) { return len(a), a == nil }

func (a timeArray) appendElements(buf []byte) []byte {
	// PostgreSQL counts microseconds from 2000-01-01 UTC. Not t.Sub: a
	// Duration saturates 292 years away, and the zero time is further.
	const y2kUnixMicros = 946684800 * 1000000
	for _, t := range a {
		us := t.Unix()*1000000 + int64(t.Nanosecond()/1000) - y2kUnixMicros
		buf = binary.BigEndian.AppendUint32(buf, 8)
		buf = binary.BigEndian.AppendUint64(buf, uint64(us))
	}
	return buf
}

func (a textArray) elements() (int, bool) { return len(a), a == nil }

func (a textArray) appendElements(buf []byte) []byte {
	for _, s := range a {
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(s)))
		buf = append(buf, s...)
	}
	return buf
}

// arrayPlan encodes a binaryArray whose elements have the type elemOID.
type arrayPlan struct{ elemOID uint32 }

// Encode implements pgtype.EncodePlan.
func (p arrayPlan) Encode(value any, buf []byte) ([]byte, error) {
	a := value.(binaryArray)
	n, null := a.elements()
	if null {
		return nil, nil
	}
	buf = binary.BigEndian.AppendUint32(buf, 1) // dimensions
	buf = binary.BigEndian.AppendUint32(buf, 0) // no NULL element
	buf = binary.BigEndian.AppendUint32(buf, p.elemOID)
	buf = binary.BigEndian.AppendUint32(buf, uint32(n))
	buf = binary.BigEndian.AppendUint32(buf, 1) // lower bound
	return a.appendElements(buf), nil
}

// arrayCodec is pgx's codec of an array type with the binary encoding of
// one of the types above in front.
type arrayCodec struct {
	pgtype.Codec
	elemOID uint32
	goType  reflect.Type // the type above this codec encodes
}

// PlanEncode implements pgtype.Codec.
func (c arrayCodec) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	// pgx memoizes the plan by the value's type: no reflection per value.
	if format == pgtype.BinaryFormatCode && reflect.TypeOf(value) == c.goType {
		return arrayPlan{elemOID: c.elemOID}
	}
	return c.Codec.PlanEncode(m, oid, format, value)
}

// registerArrayCodecs puts the codecs of uuidArray, timeArray and
// textArray in front of pgx's on conn (a pgxpool AfterConnect hook), and
// names their PostgreSQL types for the query modes that do not ask the
// server (pgx would otherwise find no plan for a named slice type).
func registerArrayCodecs(conn *pgx.Conn) {
	registerArrayCodecsIn(conn.TypeMap())
}

func registerArrayCodecsIn(m *pgtype.Map) {
	for _, a := range []struct {
		oid, elemOID uint32
		value        binaryArray
	}{
		{pgtype.UUIDArrayOID, pgtype.UUIDOID, uuidArray(nil)},
		{pgtype.TimestamptzArrayOID, pgtype.TimestamptzOID, timeArray(nil)},
		{pgtype.TextArrayOID, pgtype.TextOID, textArray(nil)},
	} {
		t, ok := m.TypeForOID(a.oid)
		if !ok {
			continue
		}
		m.RegisterType(&pgtype.Type{Name: t.Name, OID: t.OID, Codec: arrayCodec{Codec: t.Codec, elemOID: a.elemOID, goType: reflect.TypeOf(a.value)}})
		m.RegisterDefaultPgType(a.value, t.Name)
	}
}
