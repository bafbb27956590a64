package frugal

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"runtime/cgo"
	"unsafe"
)

// Store is an open storage backend: an instance of a KindStore strategy
// ("fs" from store_fs, options "root" (required) and "fsync"). Checkpoint
// engines write through it; it can also be used directly.
//
// Ownership: made by NewStore, released by Close. Engines created on it
// keep the backend open on their own, so the Store may be closed right
// after NewCkptEngine.
//
// Thread safety: calls on different keys may run concurrently; calls on
// one key are serialised by the caller. Close must not race any other
// call.
type Store struct {
	_ noCopy
	*storeHandle
}

// storeHandle owns the C object; every copy of a
// Store shares it (handle.go).
type storeHandle struct {
	ptr *C.frugal_store
}

// NewStore creates store `name` configured by opts (read during the call
// only). Backend errors are prefixed with "store 'name': ".
func NewStore(ctx *Context, name string, opts *Options) (*Store, error) {
	args, err := newStrategyArgs(ctx, name, opts)
	if err != nil {
		return nil, err
	}
	defer args.free()
	var out *C.frugal_store
	if err := takeError(C.frugal_store_create(args.ctx, args.name, args.opts, &out)); err != nil {
		return nil, err
	}
	return &Store{storeHandle: &storeHandle{ptr: out}}, nil
}

// withKey runs call with key as a C string freed before returning.
func (s *Store) withKey(key string, call func(ckey *C.char) *C.frugal_error) error {
	if s.ptr == nil {
		return closedError("store")
	}
	return withCString(key, call)
}

// Put atomically and durably writes object key. data crosses for the call
// only.
func (s *Store) Put(key string, data []byte) error {
	return s.withKey(key, func(ckey *C.char) *C.frugal_error {
		return C.frugal_store_put(s.ptr, ckey, firstOf(data), C.size_t(len(data)))
	})
}

// Size returns the size of object key; CodeNotFound when absent.
func (s *Store) Size(key string) (uint64, error) {
	var size C.uint64_t
	err := s.withKey(key, func(ckey *C.char) *C.frugal_error {
		return C.frugal_store_size(s.ptr, ckey, &size)
	})
	return uint64(size), err
}

// ReadAt fills dst with bytes [offset, offset+len(dst)) of object key.
func (s *Store) ReadAt(key string, offset uint64, dst []byte) error {
	return s.withKey(key, func(ckey *C.char) *C.frugal_error {
		return C.frugal_store_read(s.ptr, ckey, C.uint64_t(offset), firstOf(dst), C.size_t(len(dst)))
	})
}

// Remove removes object key; an absent key is not an error.
func (s *Store) Remove(key string) error {
	return s.withKey(key, func(ckey *C.char) *C.frugal_error {
		return C.frugal_store_remove(s.ptr, ckey)
	})
}

// StoreObject is one object found by List.
type StoreObject struct {
	Key  string
	Size uint64
}

// List returns every object whose key starts with prefix ("" for all), in
// key order.
func (s *Store) List(prefix string) ([]StoreObject, error) {
	if s.ptr == nil {
		return nil, closedError("store")
	}
	var out []StoreObject
	visit := func(key string, size uint64) { out = append(out, StoreObject{Key: key, Size: size}) }
	// C receives an integer handle, never a Go pointer.
	h := cgo.NewHandle(visit)
	defer h.Delete()
	cprefix := C.CString(prefix)
	defer C.free(unsafe.Pointer(cprefix))
	if err := takeError(C.frugal_go_store_list(s.ptr, cprefix, C.uintptr_t(h))); err != nil {
		return nil, err
	}
	return out, nil
}

// Close releases this handle. Calling it again does nothing.
func (s *Store) Close() error {
	if s.ptr != nil {
		C.frugal_store_destroy(s.ptr)
		s.ptr = nil
	}
	return nil
}

// CheckStoreKey checks key against libfrugal's store key rules (the ones
// every backend enforces): nil, or CodeInvalidArgument naming the
// offending component.
func CheckStoreKey(key string) error {
	ckey := C.CString(key)
	defer C.free(unsafe.Pointer(ckey))
	return takeError(C.frugal_store_check_key(ckey))
}
