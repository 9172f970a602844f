! Fixture: a module used by alloc.f90 (compile order and module files in split builds).
module totals
  implicit none
contains
  integer function total(values)
    integer, intent(in) :: values(:)
    total = sum(values)
  end function total
end module totals
