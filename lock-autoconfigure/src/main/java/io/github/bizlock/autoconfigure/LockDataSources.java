package io.github.bizlock.autoconfigure;

import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.ObjectProvider;

/** Which of the application's DataSources holds the lock tables. */
final class LockDataSources {

    private LockDataSources() {}

    /**
     * The DataSource named by {@code bizlock.datasource}, else the one marked {@link BizLockDataSource}, else the only
     * or primary one.
     */
    static DataSource lockDataSource(
            @Nullable String name,
            ListableBeanFactory beanFactory,
            ObjectProvider<DataSource> qualified,
            ObjectProvider<DataSource> dataSources) {
        if (name != null && !name.isBlank()) {
            try {
                return beanFactory.getBean(name, DataSource.class);
            } catch (NoSuchBeanDefinitionException ex) {
                throw new BizLockPropertyException(
                        "bizlock.datasource",
                        "'" + name + "'",
                        "there is no DataSource bean named '" + name + "'",
                        "Set bizlock.datasource to the name of one of the DataSource beans: "
                                + String.join(", ", beanFactory.getBeanNamesForType(DataSource.class)));
            }
        }
        DataSource marked = qualified.getIfAvailable();
        if (marked != null) {
            return marked;
        }
        DataSource unique = dataSources.getIfUnique();
        if (unique == null) {
            String beans = String.join(", ", beanFactory.getBeanNamesForType(DataSource.class));
            throw new BizLockPropertyException(
                    "bizlock.datasource",
                    "(unset)",
                    "bizlock needs one DataSource for its lock table, and there are several, none of them primary: "
                            + beans,
                    "Set bizlock.datasource to the name of the DataSource bean that holds the lock table (one of "
                            + beans + "), or mark that bean @BizLockDataSource");
        }
        return unique;
    }
}
