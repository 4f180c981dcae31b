/* placeholder: being written.  Until then, the stock tool does it all. */
#include "stock.h"

int main(int argc, char **argv)
{
	(void)argc;
	return lj_stock_exec("mke2fs", argv);
}
