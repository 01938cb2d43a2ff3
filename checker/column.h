// Column<T>: an append-only sequence of records kept in fixed blocks of 16,384 elements.
//
// A History holds millions of operations and script runs. A std::vector doubles its buffer as it
// grows: while it copies, the old and the new buffer are both alive, and afterwards up to half of
// the new one is unused. Measured on the 1,000,000-operation history of B3, that slack and that
// copy were a third of the checker's peak memory. A Column never copies what it holds and wastes
// at most one partly filled block.
//
//   Column<Operation> ops;
//   ops.push_back(op);                  // never moves an element already stored
//   const Operation& x = ops[i];        // two loads: the block, then the element
//   for (const Operation& x : ops) {}   // random-access iterators, for <algorithm> too
#ifndef LOCKSTEP_CHECKER_COLUMN_H_
#define LOCKSTEP_CHECKER_COLUMN_H_

#include <cassert>
#include <cstddef>
#include <iterator>
#include <vector>

namespace lockstep::checker {

template <typename T>
class Column {
 public:
  static constexpr size_t kBlockBits = 14;
  static constexpr size_t kBlockSize = size_t{1} << kBlockBits;

  template <bool kConst>
  class Iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = std::conditional_t<kConst, const T*, T*>;
    using reference = std::conditional_t<kConst, const T&, T&>;
    using Owner = std::conditional_t<kConst, const Column*, Column*>;

    Iterator() = default;
    Iterator(Owner column, size_t index) : column_(column), index_(index) {}
    operator Iterator<true>() const requires(!kConst) { return Iterator<true>(column_, index_); }

    reference operator*() const { return (*column_)[index_]; }
    pointer operator->() const { return &(*column_)[index_]; }
    reference operator[](difference_type n) const { return (*column_)[index_ + n]; }
    Iterator& operator++() { ++index_; return *this; }
    Iterator operator++(int) { Iterator old = *this; ++index_; return old; }
    Iterator& operator--() { --index_; return *this; }
    Iterator operator--(int) { Iterator old = *this; --index_; return old; }
    Iterator& operator+=(difference_type n) { index_ += n; return *this; }
    Iterator& operator-=(difference_type n) { index_ -= n; return *this; }
    friend Iterator operator+(Iterator it, difference_type n) { return it += n; }
    friend Iterator operator+(difference_type n, Iterator it) { return it += n; }
    friend Iterator operator-(Iterator it, difference_type n) { return it -= n; }
    friend difference_type operator-(const Iterator& a, const Iterator& b) {
      return static_cast<difference_type>(a.index_) - static_cast<difference_type>(b.index_);
    }
    friend bool operator==(const Iterator& a, const Iterator& b) { return a.index_ == b.index_; }
    friend auto operator<=>(const Iterator& a, const Iterator& b) { return a.index_ <=> b.index_; }
    // The element's position in its column.
    size_t index() const { return index_; }

   private:
    Owner column_ = nullptr;
    size_t index_ = 0;
  };
  using iterator = Iterator<false>;
  using const_iterator = Iterator<true>;
  using value_type = T;

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // REQUIRES: index < size().
  T& operator[](size_t index) {
    assert(index < size_);
    return blocks_[index >> kBlockBits][index & (kBlockSize - 1)];
  }
  const T& operator[](size_t index) const {
    assert(index < size_);
    return blocks_[index >> kBlockBits][index & (kBlockSize - 1)];
  }
  T& back() { return (*this)[size_ - 1]; }
  const T& back() const { return (*this)[size_ - 1]; }

  void push_back(T value) {
    if ((size_ & (kBlockSize - 1)) == 0) {
      blocks_.emplace_back();
      blocks_.back().reserve(kBlockSize);
    }
    blocks_.back().push_back(std::move(value));
    ++size_;
  }

  iterator begin() { return iterator(this, 0); }
  iterator end() { return iterator(this, size_); }
  const_iterator begin() const { return const_iterator(this, 0); }
  const_iterator end() const { return const_iterator(this, size_); }

 private:
  std::vector<std::vector<T>> blocks_;  // every block but the last holds kBlockSize elements
  size_t size_ = 0;
};

}  // namespace lockstep::checker

#endif  // LOCKSTEP_CHECKER_COLUMN_H_
